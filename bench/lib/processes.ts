// Child processes of the harness: spawn, wait for readiness (a `{"port":N}` line or an HTTP answer), stop.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/** The pinned Node 24 that runs this harness; every Node child uses it too. */
export const NODE = process.execPath;

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export class Child {
  readonly name: string;
  readonly proc: ChildProcess;
  #stdout = '';
  #stderr = '';
  /** Set once the process has exited and its stdout and stderr are drained (`close`, not `exit`). */
  #closed = false;
  #exited: Promise<number | null>;
  #drained: Promise<void>;

  constructor(options: SpawnOptions) {
    this.name = options.name;
    this.proc = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc.stdout?.setEncoding('utf8').on('data', (text: string) => {
      this.#stdout = (this.#stdout + text).slice(-65_536);
    });
    this.proc.stderr?.setEncoding('utf8').on('data', (text: string) => {
      this.#stderr = (this.#stderr + text).slice(-4096);
    });
    this.#exited = new Promise((resolve) => {
      this.proc.on('exit', (code) => resolve(code));
      this.proc.on('error', () => resolve(-1));
    });
    // 'exit' can come before the last stdout data: on a loaded machine a worker's summary line was
    // then not in yet. 'close' waits for the pipes too (a grandchild may hold them: see exit()).
    this.#drained = new Promise((resolve) => {
      const closed = (): void => {
        this.#closed = true;
        resolve();
      };
      this.proc.on('close', closed);
      this.proc.on('error', closed);
    });
  }

  get pid(): number {
    if (this.proc.pid === undefined) throw new Error(`${this.name} did not start: ${this.#stderr}`);
    return this.proc.pid;
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  get stdout(): string {
    return this.#stdout;
  }

  get stderrTail(): string {
    return this.#stderr.trim().slice(-800);
  }

  /** Resolves with the port from the child's first `{"port":N}` stdout line. */
  async portLine(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const match = /\{"port":(\d+)\}/.exec(this.#stdout);
      if (match !== null) return Number(match[1]);
      if (this.#closed) break;
      await delay(20);
    }
    throw new Error(`${this.name} printed no port line (${this.stderrTail || 'no stderr'})`);
  }

  /** Resolves with the first JSON object the child prints on a line whose key `key` is present. */
  async jsonLine<T>(key: string, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const line of this.#stdout.split('\n')) {
        if (line.startsWith('{') && line.includes(`"${key}"`)) return JSON.parse(line) as T;
      }
      if (this.#closed) break;
      await delay(20);
    }
    throw new Error(
      `${this.name} printed no "${key}" line (${this.stderrTail || 'no stderr'}; stdout: ${this.#stdout.trim().slice(-400) || 'none'})`,
    );
  }

  /** The exit code, once the output is in (or a second after exit, if something else holds the pipes). */
  async exit(): Promise<number | null> {
    const code = await this.#exited;
    await Promise.race([this.#drained, delay(1000)]);
    return code;
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3000);
    await this.#exited;
    clearTimeout(timer);
  }
}

/**
 * A Node script of the harness (a timing client) in its own process; under `chrt -f <priority>` when a
 * priority is given, so the client never waits for a core and its own wake-up is not timed.
 */
export function nodeWorker(options: { name: string; args: string[]; realtimePriority?: number }): Child {
  return options.realtimePriority === undefined
    ? new Child({ name: options.name, command: NODE, args: options.args })
    : new Child({
        name: options.name,
        command: 'chrt',
        args: ['-f', String(options.realtimePriority), NODE, ...options.args],
      });
}

/** Node with `args`, or under a wrapper command (e.g. valgrind) that then runs Node with them. */
export function nodeLaunch(args: readonly string[], wrapper?: readonly string[]): { command: string; args: string[] } {
  if (wrapper === undefined || wrapper.length === 0) return { command: NODE, args: [...args] };
  return { command: wrapper[0], args: [...wrapper.slice(1), NODE, ...args] };
}

/** A port free right now on 127.0.0.1, for servers that cannot be told to pick their own. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}

export interface ReadyOptions {
  url: string;
  child: Child;
  timeoutMs: number;
  /** Statuses that count as ready; any HTTP answer when omitted. */
  accept?: (status: number) => boolean;
}

/** Polls the URL until it answers (readiness is observed, never assumed after a sleep). */
export async function waitForHttp(options: ReadyOptions): Promise<void> {
  const accept = options.accept ?? ((status: number) => status > 0);
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    if (accept(await statusOf(options.url))) return;
    if (!options.child.alive) throw new Error(`${options.child.name} exited: ${options.child.stderrTail}`);
    await delay(25);
  }
  throw new Error(
    `${options.child.name} not ready at ${options.url} within ${options.timeoutMs} ms (${options.child.stderrTail})`,
  );
}
