// The agent-shaped side of the bench's mock upstream: `/agent/<deployment>/v1/messages` (Anthropic) and
// `/agent/<deployment>/v1/responses` (OpenAI Responses), each `<deployment>` with a prompt cache of its own,
// as a provider's cache is per account and region: a session that moves between deployments loses it.
// Replies stream as the providers' do: with tools offered, thinking (or a reasoning item) then a tool call
// whose arguments come in pieces; without, a short text. Usage reports cache reads and writes. A thinking
// signature or reasoning `encrypted_content` sent back that the mock did not issue is a 400, so a relay that
// alters them shows. `GET /agent/stats` gives the cache figures by deployment, `POST /agent/reset` clears them,
// `POST /agent/prefill?us=N` sets how long a reply waits for each token not read from cache.
// Request bodies are read as latin1: the bench's sessions are ASCII.
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BREAKPOINTS, PrefixCaches, type CacheReading, type PromptBlock } from './prefix-cache.ts';
import { anthropicEvents, responsesEvents, type ReplyPlan } from './mock-replies.ts';

export const AGENT_PREFIX = '/agent/';

export interface DeploymentStats {
  requests: number;
  input: number;
  read: number;
  written: number;
  cacheable: number;
}

type Json = Record<string, unknown>;

const SECRET = 'modelgate-bench-agent-mock';
const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** What the mock signs a thinking text or a reasoning item id with; the client must send it back unchanged. */
export function signatureOf(text: string): string {
  const mac = createHmac('sha256', SECRET).update(text).digest('base64');
  // Real signatures run to hundreds of characters; the length is part of what a relay carries.
  return mac.repeat(8);
}

function withoutCacheControl(block: unknown): PromptBlock {
  if (typeof block !== 'object' || block === null) return { text: JSON.stringify(block), breakpoint: false };
  const { cache_control, ...rest } = block as Json;
  return { text: JSON.stringify(rest), breakpoint: cache_control !== undefined };
}

function anthropicBlocks(body: Json): PromptBlock[] {
  const out: PromptBlock[] = [];
  for (const tool of (body.tools as unknown[] | undefined) ?? []) out.push(withoutCacheControl(tool));
  const system = body.system;
  if (typeof system === 'string') out.push({ text: system, breakpoint: false });
  else for (const block of (system as unknown[] | undefined) ?? []) out.push(withoutCacheControl(block));
  for (const message of (body.messages as Json[] | undefined) ?? []) {
    const content = message.content;
    if (typeof content === 'string') out.push({ text: `${message.role}:${content}`, breakpoint: false });
    else
      for (const block of content as unknown[]) {
        const { text, breakpoint } = withoutCacheControl(block);
        out.push({ text: `${message.role}:${text}`, breakpoint });
      }
  }
  return out;
}

function responsesBlocks(body: Json): PromptBlock[] {
  const out: PromptBlock[] = [];
  if (typeof body.instructions === 'string') out.push({ text: body.instructions, breakpoint: false });
  for (const tool of (body.tools as unknown[] | undefined) ?? [])
    out.push({ text: JSON.stringify(tool), breakpoint: false });
  const input = body.input;
  if (typeof input === 'string') out.push({ text: input, breakpoint: false });
  else
    for (const item of (input as unknown[] | undefined) ?? [])
      out.push({ text: JSON.stringify(item), breakpoint: false });
  return out;
}

/** The first block a relay altered: a thinking signature or a reasoning item the mock did not issue. */
function alteredReasoning(body: Json, dialect: 'anthropic' | 'responses'): string | undefined {
  if (dialect === 'anthropic') {
    for (const message of (body.messages as Json[] | undefined) ?? []) {
      if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
      for (const block of message.content as Json[]) {
        if (block.type === 'thinking' && block.signature !== signatureOf(String(block.thinking)))
          return 'Invalid `signature` in `thinking` block';
      }
    }
    return undefined;
  }
  for (const item of (body.input as Json[] | string | undefined) ?? []) {
    if (
      typeof item === 'object' &&
      item.type === 'reasoning' &&
      item.encrypted_content !== signatureOf(String(item.id))
    )
      return `The encrypted content for item ${String(item.id)} could not be verified.`;
  }
  return undefined;
}

function breakpointCount(blocks: readonly PromptBlock[]): number {
  let n = 0;
  for (const b of blocks) if (b.breakpoint) n++;
  return n;
}

/** Writes one event per event-loop turn, as tokens arrive from a model; stops if the client went away. */
function streamEvents(res: ServerResponse, events: readonly string[]): void {
  res.writeHead(200, SSE_HEADERS);
  let i = 0;
  const step = (): void => {
    if (res.destroyed) return;
    if (i === events.length - 1) {
      res.end(events[i]);
      return;
    }
    res.write(events[i++]);
    setImmediate(step);
  };
  step();
}

function badRequest(res: ServerResponse, dialect: 'anthropic' | 'responses', message: string): void {
  const body =
    dialect === 'anthropic'
      ? { type: 'error', error: { type: 'invalid_request_error', message } }
      : { error: { type: 'invalid_request_error', message, code: 'invalid_request', param: null } };
  res.writeHead(400, JSON_HEADERS).end(JSON.stringify(body));
}

interface Parsed {
  body: Json;
  blocks: PromptBlock[];
}

/** The body and its blocks, or why a provider would refuse it. */
function parseRequest(text: string, dialect: 'anthropic' | 'responses'): Parsed | string {
  let body: Json;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    return 'mock: the body is not JSON';
  }
  if (body.stream !== true) return 'mock agent: streamed requests only';
  const altered = alteredReasoning(body, dialect);
  if (altered !== undefined) return altered;
  const blocks = dialect === 'anthropic' ? anthropicBlocks(body) : responsesBlocks(body);
  const breakpoints = breakpointCount(blocks);
  if (breakpoints > MAX_BREAKPOINTS)
    return `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`;
  return { body, blocks };
}

export function createAgentMock(): {
  /** Serves a request under /agent/; returns false for a path it does not know. */
  reply: (path: string, res: ServerResponse, body: string) => boolean;
  /** /agent/stats and /agent/reset. */
  control: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
  stats: () => Record<string, DeploymentStats>;
} {
  const caches = new PrefixCaches();
  let stats = new Map<string, DeploymentStats>();
  let served = 0;
  // Time to first token grows with the prompt the provider has not cached: `POST /agent/prefill?us=N`
  // makes a reply wait N µs a token not read from cache (0, the default, sends at once).
  let prefillUsPerToken = 0;

  function count(deployment: string, reading: CacheReading): void {
    let s = stats.get(deployment);
    if (s === undefined) {
      s = { requests: 0, input: 0, read: 0, written: 0, cacheable: 0 };
      stats.set(deployment, s);
    }
    s.requests++;
    s.input += reading.input;
    s.read += reading.read;
    s.written += reading.written;
    s.cacheable += reading.cacheable;
  }

  function reply(path: string, res: ServerResponse, text: string): boolean {
    const rest = path.slice(AGENT_PREFIX.length);
    const slash = rest.indexOf('/');
    const deployment = rest.slice(0, slash);
    const operation = rest.slice(slash);
    const dialect = operation === '/v1/messages' ? 'anthropic' : operation === '/v1/responses' ? 'responses' : null;
    if (dialect === null || deployment === '') return false;
    const parsed = parseRequest(text, dialect);
    if (typeof parsed === 'string') {
      badRequest(res, dialect, parsed);
      return true;
    }
    const { body, blocks } = parsed;
    const reading = caches.read(deployment, dialect === 'anthropic' ? 'anthropic' : 'openai', blocks);
    count(deployment, reading);
    served++;
    const plan: ReplyPlan = {
      serial: `${deployment}${served.toString(36)}`,
      model: String(body.model),
      turn: blocks.length,
      tools: ((body.tools as Json[] | undefined) ?? []).map((t) => String(t.name)),
      reading,
      sign: signatureOf,
    };
    const events = dialect === 'anthropic' ? anthropicEvents(plan) : responsesEvents(plan);
    const waitMs = Math.floor(((reading.input - reading.read) * prefillUsPerToken) / 1000);
    if (waitMs > 0) setTimeout(streamEvents, waitMs, res, events);
    else streamEvents(res, events);
    return true;
  }

  function control(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    if (req.method === 'GET' && path === '/agent/stats') {
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify(Object.fromEntries(stats)));
      return true;
    }
    if (req.method === 'POST' && path === '/agent/prefill') {
      const us = Number(new URL(req.url ?? '/', 'http://mock').searchParams.get('us'));
      if (!Number.isFinite(us) || us < 0) {
        res.writeHead(400, JSON_HEADERS).end('{"error":"us must be a number of microseconds, 0 or more"}');
        return true;
      }
      prefillUsPerToken = us;
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify({ prefillUsPerToken }));
      return true;
    }
    if (req.method === 'POST' && path === '/agent/reset') {
      caches.clear();
      stats = new Map();
      res.writeHead(200, JSON_HEADERS).end('{"reset":true}');
      return true;
    }
    return false;
  }

  return { reply, control, stats: () => Object.fromEntries(stats) };
}
