// Replayed agent sessions: the requests Claude Code and Codex send, turn after turn. Each turn sends the
// whole conversation so far; the reply's tool call (folded from the stream by fold-reply.ts) goes back with a
// tool result large enough that the context grows from the agent's system prompt and tools to
// `maxContextTokens` by the last turn. Claude Code: /v1/messages with thinking, cache_control on both system
// blocks and on the last block of the last two user messages (four breakpoints), its session header. Codex:
// /v1/responses with reasoning items carried back (encrypted_content), function calls and outputs,
// `prompt_cache_key` and its session_id header. Every text carries the session's nonce, so no two sessions
// (nor two runs) share a cached prefix: what a session can read from cache is what it sent itself before.
import { tokensOf } from './prefix-cache.ts';

export type AgentKind = 'claude-code' | 'codex';

export interface AgentEndpoint {
  baseUrl: string;
  /** Before /v1/…: the deployment path on the mock for direct and bare-proxy targets, else ''. */
  pathPrefix: string;
  headers: Record<string, string>;
  models: Record<AgentKind, string>;
  /** Whether requests name their session (header, prompt_cache_key): off shows what affinity is worth. */
  sessionIds: boolean;
}

type Json = Record<string, unknown>;

export interface SessionRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Deterministic filler of `bytes` bytes: numbered source lines marked with the nonce. */
export function filler(bytes: number, nonce: string, label: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 1; size < bytes; n++) {
    const line = `${n}\texport function ${label}_${n}(value: number): number { return value * ${n} + ${nonce.length}; } // ${nonce}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('').slice(0, bytes);
}

function schemaTool(name: string, description: string, properties: Record<string, string>): Json {
  return {
    name,
    description,
    input_schema: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(properties).map(([k, d]) => [k, { type: 'string', description: d }]),
      ),
      required: Object.keys(properties).slice(0, 1),
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    },
  };
}

const CLAUDE_TOOLS = ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'TodoWrite', 'WebFetch', 'Task', 'NotebookEdit'];
const CODEX_TOOLS = ['shell', 'apply_patch', 'update_plan', 'view_image', 'list_mcp_resources'];

/** The agent's tools, about `bytes` in all: long descriptions, as the agents' own are. */
function toolsOf(kind: AgentKind, bytes: number, nonce: string): Json[] {
  const names = kind === 'claude-code' ? CLAUDE_TOOLS : CODEX_TOOLS;
  const each = Math.floor(bytes / names.length);
  return names.map((name) => {
    const description = filler(each, nonce, name.toLowerCase().replace(/[^a-z]/g, ''));
    const tool = schemaTool(name, description, { command: 'What to run', description: 'Why' });
    if (kind === 'claude-code') return tool;
    return { type: 'function', name, description, strict: false, parameters: tool.input_schema };
  });
}

export interface SessionShape {
  kind: AgentKind;
  turns: number;
  maxContextTokens: number;
  /** Bytes of system prompt and of tools (each): Claude Code and Codex send tens of KB before the first word. */
  preambleBytes: number;
}

/** One session's conversation, grown turn by turn. */
export class AgentSession {
  readonly id: string;
  readonly #shape: SessionShape;
  readonly #endpoint: AgentEndpoint;
  readonly #fixed: Json;
  readonly #history: Json[] = [];
  readonly #growthBytes: number;
  #turn = 0;

  constructor(shape: SessionShape, endpoint: AgentEndpoint, nonce: string) {
    this.#shape = shape;
    this.#endpoint = endpoint;
    this.id = `${nonce}-${shape.kind}`;
    const system = filler(shape.preambleBytes, this.id, 'system');
    const tools = toolsOf(shape.kind, shape.preambleBytes, this.id);
    const task = `Fix the failing test in src/module-1.ts. (${this.id})`;
    const model = endpoint.models[shape.kind];
    if (shape.kind === 'claude-code') {
      this.#fixed = {
        model,
        max_tokens: 32000,
        stream: true,
        thinking: { type: 'enabled', budget_tokens: 31999 },
        metadata: { user_id: `user_bench_account__session_${this.id}` },
        system: [
          {
            type: 'text',
            text: `You are Claude Code, Anthropic's official CLI for Claude. (${this.id})`,
            cache_control: { type: 'ephemeral' },
          },
          { type: 'text', text: system, cache_control: { type: 'ephemeral' } },
        ],
        tools,
      };
      this.#history.push({ role: 'user', content: [{ type: 'text', text: task }] });
    } else {
      this.#fixed = {
        model,
        instructions: system,
        tools,
        tool_choice: 'auto',
        parallel_tool_calls: false,
        reasoning: { effort: 'medium', summary: 'auto' },
        store: false,
        stream: true,
        include: ['reasoning.encrypted_content'],
        ...(endpoint.sessionIds ? { prompt_cache_key: this.id } : {}),
      };
      this.#history.push(
        {
          type: 'message',
          role: 'developer',
          content: [{ type: 'input_text', text: '<permissions>workspace-write</permissions>' }],
        },
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: `<environment_context>/repo</environment_context>` }],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: task }] },
      );
    }
    const start = tokensOf(JSON.stringify(this.#fixed).length);
    this.#growthBytes = Math.max(256, Math.floor(((shape.maxContextTokens - start) * 4) / shape.turns));
  }

  get turn(): number {
    return this.#turn;
  }

  request(): SessionRequest {
    const { kind } = this.#shape;
    const e = this.#endpoint;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...e.headers };
    if (kind === 'claude-code') {
      headers['anthropic-version'] = '2023-06-01';
      headers['anthropic-beta'] =
        'claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14';
      headers['x-app'] = 'cli';
      headers['user-agent'] = 'claude-cli/2.1.332 (external, cli)';
      if (e.sessionIds) headers['x-claude-code-session-id'] = this.id;
      const body = { ...this.#fixed, messages: withBreakpoints(this.#history) };
      return { url: `${e.baseUrl}${e.pathPrefix}/v1/messages`, headers, body: JSON.stringify(body) };
    }
    headers.accept = 'text/event-stream';
    headers.originator = 'codex_cli_rs';
    headers['user-agent'] = 'codex_cli_rs/0.171.0';
    headers['openai-beta'] = 'responses=experimental';
    if (e.sessionIds) headers.session_id = this.id;
    const body = { ...this.#fixed, input: this.#history };
    return { url: `${e.baseUrl}${e.pathPrefix}/v1/responses`, headers, body: JSON.stringify(body) };
  }

  /** The reply's output (assistant content blocks, or Responses output items) and the tool's result. */
  advance(output: Json[]): void {
    this.#turn++;
    const result = filler(this.#growthBytes, this.id, `turn${this.#turn}`);
    if (this.#shape.kind === 'claude-code') {
      this.#history.push({ role: 'assistant', content: output });
      const call = output.find((b) => b.type === 'tool_use');
      if (call === undefined) throw new Error('the reply made no tool call');
      this.#history.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: result }] });
      return;
    }
    this.#history.push(...output);
    const call = output.find((i) => i.type === 'function_call');
    if (call === undefined) throw new Error('the reply made no function call');
    this.#history.push({ type: 'function_call_output', call_id: call.call_id, output: result });
  }
}

/** Claude Code's breakpoints on the conversation: the last block of each of the last two user messages. */
function withBreakpoints(history: readonly Json[]): Json[] {
  const out = history.slice();
  let marked = 0;
  for (let i = out.length - 1; i >= 0 && marked < 2; i--) {
    const message = out[i];
    if (message.role !== 'user') continue;
    const content = (message.content as Json[]).slice();
    content[content.length - 1] = { ...content[content.length - 1], cache_control: { type: 'ephemeral' } };
    out[i] = { ...message, content };
    marked++;
  }
  return out;
}

/** A small request beside the sessions: a one-line question, no tools, streamed. */
export function smallRequest(endpoint: AgentEndpoint): SessionRequest {
  return {
    url: `${endpoint.baseUrl}${endpoint.pathPrefix}/v1/messages`,
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...endpoint.headers },
    body: JSON.stringify({
      model: endpoint.models['claude-code'],
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'Is the build green?' }],
    }),
  };
}
