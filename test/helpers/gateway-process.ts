// Starts the real gateway (`node src/main.ts serve`) as a child process on a free port, for end-to-end tests.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const execFileP = promisify(execFile);

export interface GatewayProcess {
  url: string;
  port: number;
  dir: string;
  configPath: string;
  dbPath: string;
  /** The gateway's process id (for reading its memory from /proc). */
  readonly pid: number | undefined;
  /** Everything the process wrote to stdout and stderr so far. */
  logs(): string;
  /** Runs `modelgate <args>` against the same config/database; returns stdout. */
  cli(args: string[]): Promise<string>;
  /** Creates a key via the CLI and waits until the running server accepts it. */
  createKey(opts?: { name?: string; flags?: string[] }): Promise<{ key: string; id: string }>;
  stop(): Promise<void>;
  /** Resolves when the running process exits (after a signal sent with `signal`). */
  exited(): Promise<void>;
  /** Sends a signal and returns at once (SIGHUP and the like). */
  signal(name: NodeJS.Signals): void;
  /** SIGKILL, no cleanup: for crash tests. */
  kill(): Promise<void>;
  /** Starts the gateway again on the same config and database (after stop or kill). */
  restart(): Promise<void>;
  cleanup(): Promise<void>;
}

/** `configYaml` may use `{{DB}}` for the database path; `listen` is always overridden with port 0. */
export async function startGateway(opts: {
  configYaml: string;
  env?: Record<string, string>;
  /** The file limit the gateway runs under (`ulimit -n` in a shell that then execs it). */
  fileLimit?: number;
}): Promise<GatewayProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-e2e-'));
  const dbPath = join(dir, 'gateway.db');
  const configPath = join(dir, 'config.yaml');
  writeFileSync(configPath, opts.configYaml.replaceAll('{{DB}}', dbPath));
  // No drain delay unless a test asks for one: nothing balances load in front of a test's gateway.
  const env = {
    ...process.env,
    MODELGATE_NO_FIRST_KEY: '1',
    MODELGATE_LOG_LEVEL: 'debug',
    MODELGATE_DRAIN_DELAY_S: '0',
    // The test machine's other processes starve a test's gateway of CPU at times: its loop runs late for
    // that, not for its own load. Shedding is on only where a test asks for it (overload-shedding.test.ts, at the default).
    MODELGATE_OVERLOAD_LOOP_DELAY_MS: '0',
    ...opts.env,
  };
  let child: ChildProcess | null = null;
  let output = '';
  let port = 0;

  const launch = async (): Promise<void> => {
    const args = ['src/main.ts', 'serve', '--config', configPath, '--port', '0', '--host', '127.0.0.1'];
    const proc = spawn(
      opts.fileLimit === undefined ? process.execPath : '/bin/sh',
      opts.fileLimit === undefined
        ? args
        : ['-c', `ulimit -n ${opts.fileLimit} && exec "$0" "$@"`, process.execPath, ...args],
      {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = proc;
    port = await new Promise<number>((resolveP, reject) => {
      let buf = '';
      const onData = (d: Buffer): void => {
        output += d.toString();
        buf += d.toString();
        const m = /"port":(\d+)[^\n]*listening/.exec(buf);
        if (m) resolveP(Number(m[1]));
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', (d: Buffer) => {
        output += d.toString();
      });
      proc.once('exit', (code) => reject(new Error(`gateway exited with ${code} before listening:\n${output}`)));
    });
  };
  await launch();

  const gw: GatewayProcess = {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    get pid() {
      return (child as ChildProcess | null)?.pid;
    },
    dir,
    configPath,
    dbPath,
    logs: () => output,
    async cli(args) {
      const { stdout, stderr } = await execFileP(process.execPath, ['src/main.ts', ...args, '--config', configPath], {
        cwd: ROOT,
        env,
      });
      output += stderr;
      return stdout;
    },
    async createKey(o = {}) {
      const out = await gw.cli(['keys', 'create', '--name', o.name ?? 'test', '--json', ...(o.flags ?? [])]);
      const rec = JSON.parse(out) as { key: string; id: string };
      await waitUntil(async () => {
        const r = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${rec.key}` } });
        await r.arrayBuffer();
        return r.status === 200;
      }, 'the server to accept the new key');
      return rec;
    },
    async stop() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
    async exited() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await once(child, 'exit');
    },
    signal(name) {
      child?.kill(name);
    },
    async kill() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
    async restart() {
      await launch();
    },
    async cleanup() {
      await gw.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return gw;
}

/** Polls a condition (for readiness of another process, not for timing) with a hard deadline. */
export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A config with one mock provider and whatever upstream providers the test adds. */
export function configYaml(opts: { providers?: string; models: string; extra?: string }): string {
  return `database: "{{DB}}"
usage_flush_ms: 20
providers:
  - { name: mock, kind: mock }
${opts.providers ?? ''}
models:
${opts.models}
${opts.extra ?? ''}
`;
}
