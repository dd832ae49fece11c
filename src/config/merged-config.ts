// The configuration a gateway runs: the file's document with the database's providers and models added
// (as `models_source` says), validated by the same path as the file alone (load.ts), so an entry added
// through the admin API or CLI meets the same schema, the same checks and the same messages.
import type { GatewayConfig } from '../core/config-types.ts';
import { checkConfig } from './check.ts';
import { ConfigError, parseConfigDoc } from './load.ts';

export type ModelsSource = GatewayConfig['modelsSource'];

/** YAML-shaped entries (credentials opened), each kind in the order it was added. */
export interface DatabaseEntries {
  providers: Record<string, unknown>[];
  models: Record<string, unknown>[];
}

export const NO_ENTRIES: DatabaseEntries = { providers: [], models: [] };

/** `models_source` as the file writes it (before validation, which refuses anything else). */
export function modelsSourceOf(fileDoc: unknown): ModelsSource {
  const v = isObject(fileDoc) ? fileDoc.models_source : undefined;
  return v === 'file' || v === 'database' ? v : 'both';
}

/** The names the file gives providers and models; they are changed in the file, not through the API. */
export function fileEntryNames(fileDoc: unknown): { providers: Set<string>; models: Set<string> } {
  const names = (list: unknown): Set<string> =>
    new Set(Array.isArray(list) ? list.filter(isObject).map((e) => String(e.name)) : []);
  if (!isObject(fileDoc) || modelsSourceOf(fileDoc) === 'database') return { providers: new Set(), models: new Set() };
  return { providers: names(fileDoc.providers), models: names(fileDoc.models) };
}

/**
 * The file's document and the database's entries as one configuration, or a ConfigError whose paths name
 * a database entry by its name (`models["gpt-x"].deployments[0]`) and a file entry by its place.
 */
export function mergedConfig(o: {
  fileDoc: unknown;
  source: string;
  entries: DatabaseEntries;
  env?: NodeJS.ProcessEnv;
}): GatewayConfig {
  const mode = modelsSourceOf(o.fileDoc);
  const doc: Record<string, unknown> = isObject(o.fileDoc) ? { ...o.fileDoc } : {};
  const fromFile = (key: 'providers' | 'models'): unknown[] =>
    mode !== 'database' && Array.isArray(doc[key]) ? (doc[key] as unknown[]) : [];
  const fileProviders = fromFile('providers');
  const fileModels = fromFile('models');
  const entries = mode === 'file' ? NO_ENTRIES : o.entries;
  const dbCount = entries.providers.length + entries.models.length;
  for (const [key, file, db] of [
    ['providers', fileProviders, entries.providers],
    ['models', fileModels, entries.models],
  ] as const) {
    // An empty list stays absent: `models_source: database` on an empty database serves no model yet.
    if (file.length + db.length > 0) doc[key] = [...file, ...db];
    else if (mode === 'database') delete doc[key];
  }
  const source = dbCount === 0 ? o.source : `${o.source} and the database`;
  const relabel = (message: string): string =>
    message.replace(/\b(providers|models)\[(\d+)\]/g, (whole, key: 'providers' | 'models', i: string) => {
      const at = Number(i) - (key === 'providers' ? fileProviders.length : fileModels.length);
      const entry = at >= 0 ? entries[key][at] : undefined;
      return entry === undefined ? whole : `${key}[${JSON.stringify(String(entry.name))}]`;
    });
  try {
    const config = parseConfigDoc(doc, { source, env: o.env });
    // What a start refuses (a per-token price) is refused here too, whichever way the entry came.
    const fatal = checkConfig(config).filter((f) => f.fatal === true);
    if (fatal.length > 0)
      throw new ConfigError(
        `config error in ${source}:\n${fatal.map((f) => `  at ${f.path}: ${f.message}`).join('\n')}`,
      );
    return config;
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(relabel(err.message));
    throw err;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
