// `modelgate config check [--config FILE]`: every check a start makes of the configuration (read, fill in
// the environment, validate), then the likely mistakes (config/check.ts). Exits 1 when there is an error,
// so a pipeline can run it before a rollout; a file that does not load at all exits 2, as a start would.
import { parseArgs } from 'node:util';
import type { GatewayConfig } from '../core/config-types.ts';
import { checkConfig, type Finding } from '../config/check.ts';
import { UsageError } from './key-flags.ts';

export function configCheckCommand(config: GatewayConfig, args: string[], out: (line: string) => void): number {
  const [sub, ...rest] = args;
  if (sub !== 'check') throw new UsageError('usage: modelgate config check [--config FILE]');
  parseArgs({ args: rest, options: { config: { type: 'string' } }, strict: true });
  const findings = checkConfig(config);
  for (const f of findings) out(formatFinding(f));
  const errors = findings.filter((f) => f.level === 'error').length;
  const warnings = findings.length - errors;
  const summary = `${config.providers.length} provider(s), ${config.models.length} model(s)`;
  if (findings.length === 0) out(`${config.source}: OK (${summary})`);
  else out(`${config.source}: ${errors} error(s), ${warnings} warning(s) (${summary})`);
  return errors > 0 ? 1 : 0;
}

export function formatFinding(f: Finding): string {
  return `${f.level}: at ${f.path}: ${f.message}`;
}
