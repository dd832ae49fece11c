// The `database` setting: an SQLite file path, or a PostgreSQL URL whose password logs must not show.

export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//.test(database);
}

/** The setting as logs and errors may show it: a PostgreSQL URL's password masked. */
export function maskDatabaseUrl(database: string): string {
  if (!isPostgresUrl(database)) return database;
  try {
    const url = new URL(database);
    if (url.password !== '') url.password = '****';
    return url.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

/** `postgres://…?schema=name`: the schema the gateway's tables live in (created when missing). */
export function parseDatabaseUrl(database: string): { url: string; schema: string | null } {
  const parsed = new URL(database);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema !== null && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`database: schema "${schema}" is not a plain identifier (letters, digits, _)`);
  }
  return { url: parsed.toString(), schema };
}
