// The gateway's side of a Responses WebSocket to an upstream (ProviderSpec.responsesSocket): the upgrade
// with the provider's headers and credential, and what it came to: open, refused (an HTTP answer instead
// of the switch), or failed (no connection). Which refusals mean "no WebSocket here" is decided here too,
// with the memory of the providers that gave one.
import WebSocket from 'ws';
import type { ProviderConfig } from '../core/config-types.ts';

export type SocketOpening =
  | { readonly kind: 'open'; readonly socket: WebSocket }
  /** The upgrade was answered with this HTTP status instead of 101. */
  | { readonly kind: 'refused'; readonly status: number }
  /** No connection, or it broke before the answer. */
  | { readonly kind: 'failed'; readonly reason: string };

export interface SocketOpenOptions {
  url: string;
  headers: Readonly<Record<string, string>>;
  /** How long the connection and the upgrade's answer may take. */
  connectMs: number;
  /** The largest frame read from the upstream. */
  maxPayload: number;
}

/** Opens a socket; never rejects. */
export function openResponsesSocket(o: SocketOpenOptions): Promise<SocketOpening> {
  return new Promise((resolve) => {
    const socket = new WebSocket(o.url, {
      headers: o.headers,
      handshakeTimeout: o.connectMs,
      maxPayload: o.maxPayload,
      perMessageDeflate: false,
      followRedirects: false,
    });
    let settled = false;
    const settle = (value: SocketOpening): void => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    socket.once('open', () => settle({ kind: 'open', socket }));
    socket.once('unexpected-response', (req, res) => {
      settle({ kind: 'refused', status: res.statusCode ?? 0 });
      res.resume();
      req.destroy();
    });
    socket.on('error', (err) => settle({ kind: 'failed', reason: err.message }));
  });
}

/**
 * Whether a refused upgrade says the upstream has no Responses WebSocket (404, 405, 426, a 400 for an
 * unknown upgrade, 501, an answer as if it were a plain GET), rather than that this call was not let
 * in (401, 403, 408, 429) or that the upstream is failing (other 5xx): only the former is remembered.
 */
export function refusalMeansUnserved(status: number): boolean {
  if (status === 501) return true;
  if (status >= 500) return false;
  return status !== 401 && status !== 403 && status !== 408 && status !== 429;
}

/**
 * The providers whose upstream said it serves no Responses WebSocket (`auto`): their turns go over HTTP
 * without asking again. Kept per provider object, so a config reload asks once more.
 */
export class SocketRefusals {
  readonly #refused = new WeakSet<ProviderConfig>();

  has(provider: ProviderConfig): boolean {
    return this.#refused.has(provider);
  }

  add(provider: ProviderConfig): void {
    this.#refused.add(provider);
  }
}
