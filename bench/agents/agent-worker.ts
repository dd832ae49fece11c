// The agent bench's client, in a process of its own so its JSON work never shares the harness's event loop.
// Argument: one JSON object whose `mode` is
//   `sessions`: replay `sessions` sessions of `shape` one after another; prints {"sessions":…} with the time
//               to first token of every turn and the usage the replies reported;
//   `small`:    `count` small streamed requests one at a time; prints {"small":…} with each one's time;
//   `big`:      Claude Code requests of `contextTokens` each, uncached (a new session each time), one after
//               another so one is always in flight; prints {"bigStarted":true} once the first has been
//               written, and {"big":…} on SIGTERM.
import http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { foldAnthropic, foldResponses, type ReplyUsage } from './fold-reply.ts';
import { signatureOf } from './mock-agent.ts';
import { AgentSession, smallRequest, type AgentEndpoint, type SessionRequest, type SessionShape } from './sessions.ts';

interface Sent {
  status: number;
  /** 503s and 529s retried before this answer, as the agents retry them. */
  retries: number;
  /** µs from the first byte written to the first chunk holding a content delta; NaN if none came. */
  ttftUs: number;
  totalUs: number;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const FIRST_TOKEN = /content_block_delta|\.delta\b/;
const micros = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1000;

const OVERLOADED = new Set([503, 529]);
const MAX_RETRIES = 4;

/**
 * Sends as the agents do: an overloaded answer (503, 529) is retried after its `retry-after` (at most a
 * second) up to four times; the times count from the first attempt, as the agent's user waits through them.
 */
async function send(request: SessionRequest, onWritten?: () => void): Promise<Sent> {
  const started = process.hrtime.bigint();
  for (let retries = 0; ; retries++) {
    const sent = await sendOnce(request, started, onWritten);
    if (!OVERLOADED.has(sent.status) || retries === MAX_RETRIES) return { ...sent, retries };
    await delay(Math.min(1000, 1000 * (Number(sent.retryAfter) || 0.25)));
  }
}

function sendOnce(
  request: SessionRequest,
  started: bigint,
  onWritten?: () => void,
): Promise<Omit<Sent, 'retries'> & { retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(request.body);
    let ttftUs = Number.NaN;
    const req = http.request(
      request.url,
      { method: 'POST', agent, headers: { ...request.headers, 'content-length': String(body.length) } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => {
          if (Number.isNaN(ttftUs) && FIRST_TOKEN.test(part.toString('latin1'))) ttftUs = micros(started);
          parts.push(part);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            ttftUs,
            totalUs: micros(started),
            text: Buffer.concat(parts).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (onWritten !== undefined) req.on('finish', onWritten);
    req.end(body);
  });
}

function print(line: object): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function sessions(options: {
  endpoint: AgentEndpoint;
  shape: SessionShape;
  sessions: number;
  nonce: string;
}): Promise<void> {
  const ttftUs: number[] = [];
  const usage: ReplyUsage = { input: 0, cacheRead: 0, cacheWrite: 0 };
  let turns = 0;
  let withoutUsage = 0;
  let maxInput = 0;
  let retries = 0;
  const errors: string[] = [];
  const fold = options.shape.kind === 'claude-code' ? foldAnthropic : foldResponses;
  for (let s = 0; s < options.sessions; s++) {
    const session = new AgentSession(options.shape, options.endpoint, `${options.nonce}s${s}`);
    try {
      while (session.turn < options.shape.turns) {
        const sent = await send(session.request());
        retries += sent.retries;
        if (sent.status !== 200) throw new Error(`turn ${session.turn + 1}: ${sent.status} ${sent.text.slice(0, 300)}`);
        const reply = fold(sent.text);
        ttftUs.push(sent.ttftUs);
        turns++;
        if (reply.usage === undefined) withoutUsage++;
        else {
          usage.input += reply.usage.input;
          maxInput = Math.max(maxInput, reply.usage.input);
          usage.cacheRead += reply.usage.cacheRead;
          usage.cacheWrite += reply.usage.cacheWrite;
        }
        session.advance(reply.output);
      }
    } catch (error) {
      errors.push(`session ${s + 1}: ${(error as Error).message}`);
    }
  }
  print({ sessions: options.sessions, turns, ttftUs, usage, maxInput, withoutUsage, retries, errors });
}

async function small(options: { endpoint: AgentEndpoint; count: number; warmup: number }): Promise<void> {
  const request = smallRequest(options.endpoint);
  const totalUs: number[] = [];
  let errors = 0;
  let retries = 0;
  for (let i = 0; i < options.warmup + options.count; i++) {
    const sent = await send(request);
    if (i >= options.warmup) retries += sent.retries;
    if (sent.status !== 200) errors++;
    else if (i >= options.warmup) totalUs.push(sent.totalUs);
  }
  print({ small: totalUs.length, totalUs, errors, retries });
}

/**
 * A Claude Code session at `contextTokens`, each time a new one: its first turn is made here (a thinking
 * block signed as the mock signs, a tool call), so its prompt is one the provider has not cached, as when a
 * long session resumes after its cache expired.
 */
function bigRequest(options: BigOptions, n: number): SessionRequest {
  const shape: SessionShape = {
    kind: 'claude-code',
    turns: 1,
    maxContextTokens: options.contextTokens,
    preambleBytes: options.preambleBytes,
  };
  const session = new AgentSession(shape, options.endpoint, `${options.nonce}b${n}`);
  const thinking = `Resume the work on module ${n}.`;
  session.advance([
    { type: 'thinking', thinking, signature: signatureOf(thinking) },
    { type: 'tool_use', id: `toolu_big${n}`, name: 'Bash', input: { command: 'git status' } },
  ]);
  return session.request();
}

interface BigOptions {
  endpoint: AgentEndpoint;
  contextTokens: number;
  preambleBytes: number;
  nonce: string;
}

async function big(options: BigOptions): Promise<void> {
  let completed = 0;
  let errors = 0;
  let bytes = 0;
  let announced = false;
  process.on('SIGTERM', () => {
    print({ big: completed, bytes, errors });
    process.exit(0);
  });
  for (let n = 0; ; n++) {
    const request = bigRequest(options, n);
    bytes = request.body.length;
    const sent = await send(request, () => {
      if (!announced) print({ bigStarted: true, bytes });
      announced = true;
    });
    if (sent.status === 200) completed++;
    else errors++;
  }
}

const options = JSON.parse(process.argv[2] ?? '{}');
if (options.mode === 'sessions') await sessions(options);
else if (options.mode === 'small') await small(options);
else if (options.mode === 'big') await big(options);
else throw new Error(`agent-worker: unknown mode ${String(options.mode)}`);
agent.destroy();
