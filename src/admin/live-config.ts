// The configuration a running gateway serves, kept current without a restart: the file (reloaded on
// SIGHUP and when it changes) plus the providers and models in the database (reloaded when the version
// row changes: polled once a second, never per request). Every change is validated whole, as a start
// validates (config/merged-config.ts); one that fails is logged and the running configuration kept.
// Changes run one at a time, so a reload never interleaves with another.
import { readFile } from 'node:fs/promises';
import { unwatchFile, watchFile } from 'node:fs';
import type { GatewayConfig } from '../core/config-types.ts';
import type { Logger } from '../observability/logger.ts';
import type { EntryKind, EntryStore } from '../store/entry-store.ts';
import { BUILTIN_CONFIG_YAML } from '../config/builtin.ts';
import { ConfigError, parseConfigYaml } from '../config/load.ts';
import { fileEntryNames, mergedConfig, modelsSourceOf, type DatabaseEntries } from '../config/merged-config.ts';
import { openCredentials, sealCredentials } from '../config/sealed-credentials.ts';
import { UsageError } from './key-flags.ts';

/** How often a replica reads the version row: a change made on another replica is served within this. */
export const ENTRY_POLL_MS = 1_000;

type Entry = Record<string, unknown>;

export interface LiveConfigOptions {
  /** The config file; null for the built-in configuration. */
  path: string | null;
  env: NodeJS.ProcessEnv;
  /** Null when `models_source: file` (the database holds no providers or models then). */
  entries: EntryStore | null;
  encryptionKey: Buffer | null;
  log?: Logger;
  /** Told of each new configuration, after it validated. */
  onChange?: (config: GatewayConfig, why: string) => void;
}

/** A change of one entry: the entry as it is (undefined when absent) in, the entry it becomes (null: removed) out. */
export type EntryChange = (current: Entry | undefined) => Entry | null;

export const ownerOf = (kind: EntryKind, name: string): string => `${kind} ${JSON.stringify(name)}`;

export class LiveConfig {
  readonly #o: LiveConfigOptions;
  #fileText: string;
  #fileDoc: unknown;
  #entries: DatabaseEntries = { providers: [], models: [] };
  #version = -1;
  /** The database version whose entries failed to validate: said once, not every poll. */
  #refusedVersion = -1;
  #config!: GatewayConfig;
  #queue: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #pollFailing = false;
  #watching = false;

  private constructor(o: LiveConfigOptions, fileText: string) {
    this.#o = o;
    this.#fileText = fileText;
    this.#fileDoc = parseConfigYaml(fileText, this.source);
  }

  static async open(o: LiveConfigOptions): Promise<LiveConfig> {
    const live = new LiveConfig(o, await readConfigFile(o.path));
    if (o.entries !== null) {
      live.#version = await o.entries.version();
      live.#entries = await live.#readEntries();
    }
    live.#config = live.#build(live.#fileDoc, live.#entries);
    return live;
  }

  get config(): GatewayConfig {
    return this.#config;
  }

  get source(): string {
    return this.#o.path ?? '(built-in)';
  }

  get modelsSource(): GatewayConfig['modelsSource'] {
    return modelsSourceOf(this.#fileDoc);
  }

  /** The file's entries as written (`${NAME}` unsubstituted) and the database's (credentials opened), in order. */
  entriesOf(kind: EntryKind): { entry: Entry; source: 'file' | 'database' }[] {
    const key = kind === 'provider' ? 'providers' : 'models';
    const doc = this.#fileDoc as Record<string, unknown> | null;
    const file =
      this.modelsSource !== 'database' && Array.isArray(doc?.[key]) ? (doc[key] as Entry[]) : ([] as Entry[]);
    const db = this.modelsSource === 'file' ? [] : this.#entries[key];
    return [
      ...file.map((entry) => ({ entry, source: 'file' as const })),
      ...db.map((entry) => ({ entry, source: 'database' as const })),
    ];
  }

  /** Starts the version poll and the file watch. */
  start(): void {
    if (this.#o.entries !== null) {
      this.#timer = setInterval(
        () =>
          this.sync().then(
            () => {
              if (this.#pollFailing) this.#o.log?.info('the providers and models in the database can be read again');
              this.#pollFailing = false;
            },
            (err: unknown) => {
              if (!this.#pollFailing)
                this.#o.log?.error(
                  { err: String(err) },
                  'cannot read the providers and models in the database: serving the ones loaded before until it answers',
                );
              this.#pollFailing = true;
            },
          ),
        ENTRY_POLL_MS,
      );
      this.#timer.unref();
    }
    // A stat a second, off the event loop: it sees an edit, a replaced file and a ConfigMap's swapped link alike.
    this.#watching = this.#o.path !== null && this.#config.configWatch;
    if (this.#watching && this.#o.path !== null)
      watchFile(this.#o.path, { interval: ENTRY_POLL_MS, persistent: false }, (now, before) => {
        if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) void this.reloadFile('the file changed');
      });
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#watching && this.#o.path !== null) unwatchFile(this.#o.path);
    this.#watching = false;
  }

  /** Reads the file again; a file that does not validate is logged and the running configuration kept. */
  reloadFile(why: string): Promise<boolean> {
    return this.#serial(async () => {
      let text: string;
      try {
        text = await readConfigFile(this.#o.path);
      } catch (err) {
        this.#o.log?.error(
          { err: (err as Error).message },
          `config reload (${why}) refused: the running config is kept`,
        );
        return false;
      }
      // The watch also fires on a touch: a file whose text did not change changes nothing.
      if (why === 'the file changed' && text === this.#fileText) return false;
      try {
        const doc = parseConfigYaml(text, this.source);
        const config = this.#build(doc, this.#entries);
        this.#fileText = text;
        this.#fileDoc = doc;
        this.#apply(config, `config file reloaded (${why})`);
        return true;
      } catch (err) {
        this.#o.log?.error(
          { file: this.source, err: err instanceof Error ? err.message : String(err) },
          `config reload (${why}) refused: the file is not valid; the running config is kept`,
        );
        return false;
      }
    });
  }

  /** Loads the database's entries when another process changed them (the version row moved). */
  sync(): Promise<void> {
    return this.#serial(() => this.#sync());
  }

  /**
   * Changes one database entry: the whole configuration it leads to is validated first (a ConfigError,
   * with the start's messages, refuses it), then written, then served here at once; other replicas load
   * it at their next poll.
   */
  change(kind: EntryKind, name: string, change: EntryChange): Promise<Entry | null> {
    return this.#serial(async () => {
      const store = this.#o.entries;
      const fileNames = fileEntryNames(this.#fileDoc);
      if (store === null || this.modelsSource === 'file')
        throw new UsageError(
          `models_source is file in ${this.source}: providers and models are changed in that file (then SIGHUP, or save it)`,
          'conflict',
        );
      if ((kind === 'provider' ? fileNames.providers : fileNames.models).has(name))
        throw new UsageError(
          `${ownerOf(kind, name)} comes from the config file ${this.source}: change it there (the gateway reloads the file when it changes, or on SIGHUP)`,
          'conflict',
        );
      await this.#sync();
      const key = kind === 'provider' ? 'providers' : 'models';
      const list = this.#entries[key];
      const at = list.findIndex((e) => e.name === name);
      const next = change(at === -1 ? undefined : list[at]);
      if (next === null && at === -1) throw new UsageError(`no ${kind} named ${JSON.stringify(name)}`, 'not_found');
      const candidate = { ...this.#entries, [key]: [...list] };
      if (next === null) candidate[key].splice(at, 1);
      else if (at === -1) candidate[key].push(next);
      else candidate[key][at] = next;
      this.#build(this.#fileDoc, candidate);
      const owner = ownerOf(kind, name);
      const written =
        next === null
          ? await store.remove(kind, name)
          : await store.put(
              { kind, name, body: JSON.stringify(sealCredentials(next, this.#o.encryptionKey, owner)) },
              at === -1 ? 'create' : 'replace',
            );
      if (!written)
        throw new UsageError(`${owner} was changed by another admin meanwhile: read it again and retry`, 'conflict');
      await this.#sync();
      return next;
    });
  }

  async #sync(): Promise<void> {
    const store = this.#o.entries;
    if (store === null) return;
    const version = await store.version();
    if (version === this.#version) return;
    let entries: DatabaseEntries;
    let config: GatewayConfig;
    try {
      entries = await this.#readEntries();
      config = this.#build(this.#fileDoc, entries);
    } catch (err) {
      if (this.#refusedVersion !== version)
        this.#o.log?.error(
          { version, err: err instanceof Error ? err.message : String(err) },
          "the database's providers and models do not validate: the running config is kept until they do",
        );
      this.#refusedVersion = version;
      return;
    }
    this.#version = version;
    this.#entries = entries;
    this.#apply(config, `providers and models reloaded from the database (version ${version})`);
  }

  async #readEntries(): Promise<DatabaseEntries> {
    const out: DatabaseEntries = { providers: [], models: [] };
    for (const row of (await this.#o.entries?.list()) ?? []) {
      const entry = openCredentials(JSON.parse(row.body) as Entry, this.#o.encryptionKey, ownerOf(row.kind, row.name));
      (row.kind === 'provider' ? out.providers : out.models).push(entry);
    }
    return out;
  }

  #build(fileDoc: unknown, entries: DatabaseEntries): GatewayConfig {
    return mergedConfig({ fileDoc, source: this.source, entries, env: this.#o.env });
  }

  #apply(config: GatewayConfig, why: string): void {
    this.#config = config;
    this.#o.onChange?.(config, why);
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}

async function readConfigFile(path: string | null): Promise<string> {
  if (path === null) return BUILTIN_CONFIG_YAML;
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`config error in ${path}: cannot read the file (${(err as Error).message})`);
  }
}
