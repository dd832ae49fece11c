// `modelgate migrate [--dry-run]`: the schema migrations a start would run, run (or listed) on their own
// and the command exits, so a rollout can migrate in a job before any new replica starts.
import { parseArgs } from 'node:util';
import type { GatewayConfig } from '../core/config-types.ts';
import { isPostgresUrl, maskDatabaseUrl } from '../store/database-url.ts';
import { openStore } from '../store/open-store.ts';
import { openResponseStore } from '../store/response-store.ts';
import { openConversationStore } from '../store/conversation-store.ts';
import { openEntryStore } from '../store/entry-store.ts';
import { refuseNewer, type MigrationStep } from '../store/migrations.ts';
import { schemaStatus } from '../store/schema-status.ts';

export async function migrateCommand(
  config: GatewayConfig,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    strict: true,
  });
  const where = maskDatabaseUrl(config.database);
  const schemas = await schemaStatus(config.database);
  // A database a newer build migrated is refused here as at a start: with both versions named.
  for (const s of schemas) refuseNewer({ name: s.name, table: '', steps: Array(s.latest) }, s.current);
  const pending = schemas.reduce((n, s) => n + s.pending.length, 0);
  if (values['dry-run']) {
    out(`database ${where}:`);
    for (const s of schemas) {
      if (s.pending.length === 0) {
        out(`  ${s.name}: at version ${s.current}, up to date`);
        continue;
      }
      out(`  ${s.name}: at version ${s.current}, ${s.pending.length} pending (to version ${s.latest}):`);
      s.pending.forEach((step, i) =>
        out(`    ${s.current + i} → ${s.current + i + 1}: ${step.replace(/\s+/g, ' ').trim().slice(0, 100)}`),
      );
    }
    out(pending === 0 ? 'nothing to migrate' : `${pending} step(s) would run; nothing was changed (--dry-run)`);
    return;
  }
  const ran: MigrationStep[] = [];
  const onMigrated = (step: MigrationStep): void => {
    ran.push(step);
    out(`migrated ${step.schema}: version ${step.from} → ${step.to}`);
  };
  const store = await openStore(config.database, onMigrated);
  try {
    const responses = await openResponseStore(config.database, isPostgresUrl(config.database), onMigrated);
    await responses.close();
    const conversations = await openConversationStore(config.database, isPostgresUrl(config.database), onMigrated);
    await conversations.close();
    const entries = await openEntryStore(config.database, isPostgresUrl(config.database), onMigrated);
    await entries.close();
  } finally {
    await store.close();
  }
  out(
    ran.length === 0
      ? `database ${where}: up to date, nothing to migrate`
      : `database ${where}: ${ran.length} step(s) migrated; ${schemas.map((s) => `${s.name} at version ${s.latest}`).join(', ')}`,
  );
}
