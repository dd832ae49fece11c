// The fetch the SDK's HTTP client transports use to reach a remote MCP server: undici's own, on the
// gateway's dispatcher for MCP servers (not the global one), with the server's OAuth access token when it
// has `oauth:` configured. A 401 with a cached token is tried once more with a new one (a revoked token).
import { Agent, fetch as undiciFetch } from 'undici';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCredentials } from './oauth.ts';

/** One pool for every MCP server: its connections are apart from the model traffic's. */
let dispatcher: Agent | null = null;

function mcpDispatcher(): Agent {
  dispatcher ??= new Agent({ keepAliveTimeout: 30_000, connections: 32 });
  return dispatcher;
}

export function upstreamFetch(oauth: ClientCredentials | null): FetchLike {
  const plain = (url: string | URL, init?: RequestInit): Promise<Response> =>
    // undici's fetch takes its own RequestInit (with `dispatcher`); the shapes agree for what the SDK sends.
    undiciFetch(url, { ...(init as object), dispatcher: mcpDispatcher() }) as unknown as Promise<Response>;
  if (oauth === null) return plain;
  return async (url, init) => {
    const token = await oauth.token();
    const res = await plain(url, withBearer(init, token));
    if (res.status !== 401) return res;
    oauth.invalidate(token);
    await res.body?.cancel();
    return plain(url, withBearer(init, await oauth.token()));
  };
}

function withBearer(init: RequestInit | undefined, token: string): RequestInit {
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
}
