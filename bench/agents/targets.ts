// The agent bench's targets, started with the main bench's starters: the mock itself (direct), the bare
// proxy and claude-code-router, each in front of one mock deployment (`a`); modelgate with two deployments
// (`a`, `b`) of each model, so where a session's requests go decides what its cache holds. modelgate is
// also replayed without session ids (no session header, no prompt_cache_key): what affinity is worth.
import type { Child } from '../lib/processes.ts';
import { startModelgate } from '../lib/modelgate-target.ts';
import { startBareProxy, startClaudeCodeRouter } from '../lib/targets.ts';
import type { Started } from '../lib/targets.ts';
import type { AgentEndpoint, AgentKind } from './sessions.ts';

export type AgentTargetName = 'direct' | 'bare-proxy' | 'modelgate' | 'modelgate-no-session' | 'ccr';

export interface AgentTarget {
  name: AgentTargetName;
  /** The process whose tree's CPU is measured; for direct, the mock. */
  child: Child;
  endpoint: AgentEndpoint;
  agents: ReadonlySet<AgentKind>;
  /** Started by this bench (stopped at the end); modelgate-no-session shares modelgate's process. */
  owned: boolean;
}

const UPSTREAM_MODELS: Record<AgentKind, string> = { 'claude-code': 'claude-sonnet-4-5', codex: 'gpt-5-codex' };
const BOTH: ReadonlySet<AgentKind> = new Set(['claude-code', 'codex']);
const PRICE = { input: 3, output: 15 };

const mockEndpoint = (baseUrl: string): AgentEndpoint => ({
  baseUrl,
  pathPrefix: '/agent/a',
  headers: { 'x-api-key': 'x', authorization: 'Bearer x' },
  models: UPSTREAM_MODELS,
  sessionIds: true,
});

export function directAgentTarget(mock: { child: Child; port: number }): AgentTarget {
  return {
    name: 'direct',
    child: mock.child,
    endpoint: mockEndpoint(`http://127.0.0.1:${mock.port}`),
    agents: BOTH,
    owned: false,
  };
}

export async function startBareAgentTarget(mockPort: number): Promise<AgentTarget[] | string> {
  const started = await startBareProxy(mockPort);
  if (!started.ok) return started.reason;
  return [
    {
      name: 'bare-proxy',
      child: started.target.child,
      endpoint: mockEndpoint(started.target.baseUrl),
      agents: BOTH,
      owned: true,
    },
  ];
}

/** modelgate's providers and models: Anthropic and Responses pass-through, two deployments each. */
export function agentSettings(mockPort: number): Record<string, unknown> {
  const mock = `http://127.0.0.1:${mockPort}`;
  const providers = ['a', 'b'].flatMap((d) => [
    { name: `agent-${d}`, kind: 'anthropic', base_url: `${mock}/agent/${d}`, api_key: 'x' },
    { name: `agent-o${d}`, kind: 'openai', base_url: `${mock}/agent/${d}/v1`, api_key: 'x', apis: ['responses'] },
  ]);
  const models = [
    {
      name: 'claude-agent',
      price: PRICE,
      deployments: ['a', 'b'].map((d) => ({ provider: `agent-${d}`, model: UPSTREAM_MODELS['claude-code'] })),
    },
    {
      name: 'codex-agent',
      price: PRICE,
      deployments: ['a', 'b'].map((d) => ({ provider: `agent-o${d}`, model: UPSTREAM_MODELS.codex })),
    },
  ];
  return { providers, models };
}

export async function startModelgateAgentTargets(options: {
  mockPort: number;
  workDir: string;
}): Promise<AgentTarget[] | string> {
  const started: Started = await startModelgate({ ...options, settings: agentSettings(options.mockPort) });
  if (!started.ok) return started.reason;
  const { target } = started;
  const endpoint: AgentEndpoint = {
    baseUrl: target.baseUrl,
    pathPrefix: '',
    headers: { authorization: target.request('chat').headers.authorization },
    models: { 'claude-code': 'claude-agent', codex: 'codex-agent' },
    sessionIds: true,
  };
  return [
    { name: 'modelgate', child: target.child, endpoint, agents: BOTH, owned: true },
    {
      name: 'modelgate-no-session',
      child: target.child,
      endpoint: { ...endpoint, sessionIds: false },
      agents: BOTH,
      owned: false,
    },
  ];
}

/**
 * claude-code-router with the mock's deployment `a` as an Anthropic provider: its `Anthropic` transformer on
 * both sides, which it passes through. It routes Claude Code's /v1/messages only; Codex is not its client.
 */
export async function startCcrAgentTarget(options: {
  mockPort: number;
  workDir: string;
  install: boolean;
}): Promise<AgentTarget[] | string> {
  const started = await startClaudeCodeRouter({
    ...options,
    provider: {
      api_base_url: `http://127.0.0.1:${options.mockPort}/agent/a/v1/messages`,
      models: [UPSTREAM_MODELS['claude-code']],
      transformer: { use: ['Anthropic'] },
    },
  });
  if (!started.ok) return started.reason;
  return [
    {
      name: 'ccr',
      child: started.target.child,
      endpoint: {
        baseUrl: started.target.baseUrl,
        pathPrefix: '',
        headers: { 'x-api-key': 'x' },
        models: UPSTREAM_MODELS,
        sessionIds: true,
      },
      agents: new Set(['claude-code']),
      owned: true,
    },
  ];
}
