// The `modelgate` command line: serve, keys, teams, usage, requests, migrate, config check, --version. Run as `npx modelgate …` or `node src/main.ts …`.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, resolveConfigPath, ConfigError } from './config/load.ts';
import { openStore } from './store/open-store.ts';
import { isPostgresUrl } from './store/database-url.ts';
import { keysCommandAudited } from './admin/keys-command.ts';
import { teamsCommandAudited } from './admin/teams-command.ts';
import { requestsCommand, usageCommand } from './admin/usage-command.ts';
import { serveCommand } from './admin/serve-command.ts';
import { UsageError } from './admin/key-flags.ts';
import { pricesCommand } from './admin/prices-command.ts';
import { reconcileCommand } from './admin/reconcile-command.ts';
import { migrateCommand } from './admin/migrate-command.ts';
import { configCheckCommand } from './admin/config-check-command.ts';
import type { GatewayConfig } from './core/config-types.ts';
import { entriesCommand } from './admin/entries-command.ts';
import { MODELGATE_VERSION } from './runtime/version.ts';

const HELP = `modelgate — an HTTP gateway in front of language models

usage:
  modelgate serve [--config FILE] [--port N] [--host H]
  modelgate keys create --name NAME [--models m1,claude-*] [--expires ISO-8601] [--budget-usd X]
                        [--token-budget N] [--budget-period daily|weekly|monthly] [--rpm N] [--tpm N]
                        [--concurrency N] [--team NAME] [--json]
  modelgate keys list|show|update|disable|enable|delete [ID|NAME] [options] [--json]
  modelgate keys rotate ID|NAME [--grace-seconds N] [--json]   a new secret; the old one valid N seconds
  modelgate teams create|update ID|NAME [--name N] [--models m1,m2] [--mcp-tools t1] [--budget-usd X]
                   [--token-budget N] [--budget-period P] [--rpm N] [--tpm N] [--concurrency N] [--json]
  modelgate teams list|show|delete [ID|NAME] [--json]    a team's limits hold over all of its keys together
  modelgate usage [--days N] [--key ID|NAME] [--json]
  modelgate usage --group-by day,hour,model,key,deployment,endpoint,team [--from D] [--to D] [--key K] [--model M]
                  [--deployment D] [--endpoint /mcp] [--errors] [--csv|--json]
  modelgate requests [--limit N] [--before ID] [--from D] [--to D] [--status 429|4xx] [--endpoint E] [--key K]
                     [--team T] [--model M] [--q TEXT] [--request-id ID] [--errors] [--json]
  modelgate requests show ID [--json]               one request: its error (masked) and each attempt
  modelgate prices [--json]
  modelgate reconcile --provider openai|anthropic --file EXPORT [--from YYYY-MM-DD] [--to YYYY-MM-DD]
                      [--tolerance-usd X] [--json]
  modelgate providers list|show|add|update|remove [NAME] [ENTRY|--file FILE] [--json]
  modelgate models list|show|add|update|remove [NAME] [ENTRY|--file FILE] [--json]
                  ENTRY: one entry as in the YAML file (YAML or JSON); running gateways load it within a second
  modelgate migrate [--dry-run] [--config FILE]    run (or list) pending schema migrations, then exit
  modelgate config check [--config FILE]           validate the config and look for likely mistakes
  modelgate --version

The config comes from --config, else $MODELGATE_CONFIG, else ./modelgate.yaml, else a built-in mock setup.`;

const COMMANDS: ReadonlySet<string> = new Set([
  'serve',
  'keys',
  'teams',
  'usage',
  'requests',
  'migrate',
  'config',
  'prices',
  'reconcile',
  'providers',
  'models',
]);

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(HELP);
    return;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    console.log(MODELGATE_VERSION);
    return;
  }
  if (!COMMANDS.has(command)) throw new UsageError(`unknown command "${command}"\n\n${HELP}`);
  const configFlag = flagValue(rest, '--config');
  // Key management and reports need the database, not the upstreams: credentials missing from this
  // shell's environment do not stop them.
  // A config check sees what a start would: credentials included.
  const config = loadConfig(
    resolveConfigPath(configFlag),
    command === 'serve' || command === 'config' ? process.env : withoutCredentials(process.env),
  );
  if (command === 'config') {
    process.exitCode = configCheckCommand(await withDatabaseEntries(config), rest, (line) => console.log(line));
    return;
  }
  if (command === 'serve') {
    const { values } = parseArgs({
      args: rest,
      options: { config: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } },
      strict: true,
    });
    if (values.port !== undefined) {
      const port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0–65535');
      config.listen.port = port;
    }
    if (values.host) config.listen.host = values.host;
    await serveCommand(config);
    return;
  }
  if (command === 'migrate') {
    await migrateCommand(config, rest, (line) => console.log(line));
    return;
  }
  if (command === 'prices') {
    pricesCommand(config.models, rest, (s) => console.log(s));
    return;
  }
  // Only `keys create` may make a database: anything else run where there is none was pointed at the
  // wrong place (another directory, another config) and would report an empty, new one.
  const creating = command === 'keys' && rest[0] === 'create';
  if (!creating && config.database !== ':memory:' && !isPostgresUrl(config.database) && !existsSync(config.database)) {
    throw new Error(
      `no database at ${resolve(config.database)} (database: ${config.database} in ${config.source}, relative to ${process.cwd()}); run this where the gateway runs, or pass its --config`,
    );
  }
  if (command === 'providers' || command === 'models') {
    await entriesCommand(config, command, rest, {
      env: withoutCredentials(process.env),
      out: (s) => console.log(s),
    });
    return;
  }
  const store = await openStore(config.database);
  try {
    const out = (s: string): void => console.log(s);
    if (command === 'keys') await keysCommandAudited(config.database, store, rest, out);
    else if (command === 'teams') await teamsCommandAudited(config.database, store, rest, out);
    else if (command === 'usage') await usageCommand(store, rest, out);
    else if (command === 'requests') await requestsCommand(store, rest, out);
    else if (command === 'reconcile') {
      // A differing day is an answer, not a failure of the command: exit 1, and 2 for a usage error.
      if (!(await reconcileCommand(store, config.models, rest, out))) process.exitCode = 1;
    } else throw new UsageError(`unknown command "${command}"\n\n${HELP}`);
  } finally {
    await store.close();
  }
}

/**
 * The environment, with unset credential variables (…KEY, …TOKEN, …SECRET) read as a placeholder. The
 * gateway's own MODELGATE_* variables stay as they are: unset means off, not a placeholder.
 */
function withoutCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return new Proxy(env, {
    get: (target, name) =>
      typeof name === 'string' &&
      target[name] === undefined &&
      /KEY|TOKEN|SECRET|PASSWORD/i.test(name) &&
      !name.startsWith('MODELGATE_')
        ? '(unset)'
        : target[name as string],
  });
}

function flagValue(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
  }
  return undefined;
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (
    err instanceof ConfigError ||
    err instanceof UsageError ||
    (err instanceof Error && err.name === 'TypeError' && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
  ) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});

/**
 * The configuration a start would serve: the file's, and (unless `models_source: file`) the providers and
 * models the database holds, validated together, so a config check finds what a start would refuse. A
 * SQLite file that does not exist is left uncreated.
 */
async function withDatabaseEntries(config: GatewayConfig): Promise<GatewayConfig> {
  if (config.modelsSource === 'file') return config;
  const { isPostgresUrl } = await import('./store/database-url.ts');
  // A SQLite database that does not exist yet holds no entries: the check creates none.
  if (!isPostgresUrl(config.database) && !existsSync(config.database)) return config;
  const { openEntryStore } = await import('./store/entry-store.ts');
  const { LiveConfig } = await import('./admin/live-config.ts');
  const { encryptionKey } = await import('./config/sealed-credentials.ts');
  const entries = await openEntryStore(config.database, isPostgresUrl(config.database));
  try {
    const live = await LiveConfig.open({
      path: config.source === '(built-in)' ? null : config.source,
      env: process.env,
      entries,
      encryptionKey: encryptionKey(process.env),
    });
    return live.config;
  } finally {
    await entries.close();
  }
}
