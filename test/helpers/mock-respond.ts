// Writes a prepared mock response to the socket, normally or damaged in one of the ways a Fault names
// (cut, stalled, ended by a malformed or error tail, trickled). Every wait is tied to the response's 'close', so a client that goes
// away stops the writer at once instead of leaving timers behind.

import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { HeaderMap } from './mock-upstream-types.ts';

export interface PreparedResponse {
  status: number;
  headers: HeaderMap;
  /** SSE frames for a stream; a single element (the whole body) otherwise. */
  pieces: string[];
  stream: boolean;
}

/** What to do once `at` pieces have been written. */
export type Damage =
  | { kind: 'none' }
  | { kind: 'cut'; at: number }
  | { kind: 'hang'; at: number }
  /** Write `text` (a malformed line, an in-stream error event) and end the response. */
  | { kind: 'tail'; at: number; text: string };

export interface WriteOptions {
  /** Delay before each piece after the first. */
  pieceDelayMs: number;
  damage: Damage;
  /** When set, bytes go out `bytes` at a time with `intervalMs` between writes. */
  trickle?: { intervalMs: number; bytes: number };
}

/** Aborted when the response closes for any reason (finished, client gone, socket destroyed). */
export function closeSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  return controller.signal;
}

/** Resolves false when the response closed during the wait. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

export async function writePrepared(
  res: ServerResponse,
  prepared: PreparedResponse,
  options: WriteOptions,
): Promise<void> {
  const signal = closeSignal(res);
  const { damage } = options;
  const pieces = damage.kind !== 'none' && !prepared.stream ? halves(prepared.pieces.join('')) : prepared.pieces;
  const headers: HeaderMap = { ...prepared.headers };
  if (!prepared.stream) headers['content-length'] = String(Buffer.byteLength(prepared.pieces.join('')));
  if (damage.kind === 'tail' && !prepared.stream) delete headers['content-length'];
  res.writeHead(prepared.status, headers);
  res.flushHeaders();
  for (let i = 0; i <= pieces.length; i++) {
    if (damage.kind !== 'none' && i === Math.min(damage.at, pieces.length)) {
      applyDamage(res, damage);
      return;
    }
    if (i === pieces.length) break;
    if (i > 0 && !(await pause(options.pieceDelayMs, signal))) return;
    if (!(await writePiece(res, pieces[i], { signal, trickle: options.trickle }))) return;
  }
  res.end();
}

function applyDamage(res: ServerResponse, damage: Damage): void {
  if (damage.kind === 'cut') res.socket?.destroy();
  else if (damage.kind === 'tail') res.end(damage.text);
  // 'hang': leave the response open; the client or close() ends it.
}

/** Non-streamed bodies are "cut after N events" at their middle: N=0 sends nothing, N≥1 half. */
function halves(body: string): string[] {
  const mid = Math.floor(body.length / 2);
  return [body.slice(0, mid), body.slice(mid)];
}

async function writePiece(
  res: ServerResponse,
  piece: string,
  options: { signal: AbortSignal; trickle: { intervalMs: number; bytes: number } | undefined },
): Promise<boolean> {
  const { signal, trickle } = options;
  if (trickle === undefined) return flushed(res, piece, signal);
  // Byte slices may split a UTF-8 character on purpose: decoders must cope with that.
  const bytes = Buffer.from(piece, 'utf8');
  for (let at = 0; at < bytes.length; at += trickle.bytes) {
    if (at > 0 && !(await pause(trickle.intervalMs, signal))) return false;
    if (!(await flushed(res, bytes.subarray(at, at + trickle.bytes), signal))) return false;
  }
  return true;
}

/**
 * Writes and waits until the bytes are handed to the kernel, so a following cut really comes after them
 * (destroying a socket drops anything still queued) and a client that stops reading applies backpressure.
 */
function flushed(res: ServerResponse, chunk: string | Uint8Array, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    res.write(chunk, (err) => resolve(err == null && !signal.aborted));
  });
}
