// Runs the installed Claude Code CLI (`claude -p`) non-interactively against a gateway: its own HOME and
// config directory in a temp dir, no telemetry, updates or other traffic, and only the tools a test allows.
// Launched through the package's cli-wrapper.cjs, which finds the platform binary whether or not the
// package's postinstall ran (`npm ci --ignore-scripts`, or an allowScripts list without it).
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';

const require = createRequire(import.meta.url);
const WRAPPER = join(dirname(require.resolve('@anthropic-ai/claude-code/package.json')), 'cli-wrapper.cjs');

/** Where Claude Code goes, and how it sends the key: `auth-token` (Bearer, the default) or `api-key` (x-api-key). */
export interface Gateway {
  url: string;
  key: string;
  as?: 'auth-token' | 'api-key';
}

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The env every run gets: isolated from the machine's own Claude Code, and quiet on the network. `cloud`
 * (Claude Code's Bedrock or Vertex mode: `CLAUDE_CODE_USE_BEDROCK`, its base URL and credential) stands
 * instead of the first-party base URL and key.
 */
function quietEnv(home: string, gateway: Gateway, cloud?: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    XDG_CONFIG_HOME: join(home, '.config'),
    ...(cloud !== undefined
      ? cloud
      : {
          ANTHROPIC_BASE_URL: gateway.url,
          ...(gateway.as === 'api-key' ? { ANTHROPIC_API_KEY: gateway.key } : { ANTHROPIC_AUTH_TOKEN: gateway.key }),
        }),
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

/** `claude --version` works here, or the test is skipped locally (and fails when CI=true). */
export async function claudeOrSkip(t: TestContext): Promise<boolean> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [WRAPPER, '--version'], { timeout: 60_000 });
    if (/Claude Code/.test(stdout)) return true;
    throw new Error(`unexpected --version output: ${stdout}`);
  } catch (err) {
    if (process.env.CI === 'true') throw new Error(`Claude Code must run in CI: ${String(err)}`);
    t.skip(
      `the Claude Code binary cannot run here (${String(err).slice(0, 200)}); skipped locally, it fails when CI=true`,
    );
    return false;
  }
}

/** `claude -p <prompt> --allowedTools <tools> [--model m]`, killed (its whole process group) after `timeoutMs`. */
export async function runClaude(opts: {
  gateway: Gateway;
  prompt: string;
  allowedTools: string;
  model?: string;
  timeoutMs?: number;
  /** Claude Code's cloud mode settings instead of ANTHROPIC_BASE_URL and its key. */
  cloud?: Record<string, string>;
  /** More command-line arguments (`--mcp-config <json>`). */
  extraArgs?: string[];
  /** More environment (`ENABLE_TOOL_SEARCH`). */
  env?: Record<string, string>;
}): Promise<ClaudeRun> {
  const home = mkdtempSync(join(tmpdir(), 'modelgate-claude-'));
  const args = [WRAPPER, '-p', opts.prompt, '--allowedTools', opts.allowedTools, '--output-format', 'text'];
  if (opts.model !== undefined) args.push('--model', opts.model);
  if (opts.extraArgs !== undefined) args.push(...opts.extraArgs);
  const child = spawn(process.execPath, args, {
    cwd: home,
    env: { ...quietEnv(home, opts.gateway, opts.cloud), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => {
    stderr += `\n[test] killed after ${opts.timeoutMs ?? 180_000} ms`;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, opts.timeoutMs ?? 180_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (c) => resolve(c));
    });
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
    rmSync(home, { recursive: true, force: true });
  }
}
