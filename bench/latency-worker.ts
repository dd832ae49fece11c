// Latency at 1 connection, one request at a time, over one raw socket: each request is one write and
// each response is framed by content-length or chunks (lib/raw-http.ts), so the client adds little and
// steady time of its own. Argument: {request, count, warmup} JSON; prints one JSON line with µs figures.
import net from 'node:net';
import type { LoadRequest } from './lib/load.ts';
import { requestBytes, responseEnd } from './lib/raw-http.ts';
import { percentile } from './lib/stats.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as { request: LoadRequest; count: number; warmup: number };
const url = new URL(options.request.url);
const bytes = requestBytes(options.request);

function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => resolve(socket));
    socket.setNoDelay(true);
    socket.once('error', reject);
  });
}

let socket = await connect();

/** One request; resolves with its status (0 when the connection failed, after reconnecting). */
function once(): Promise<number> {
  return new Promise((resolve) => {
    let buf: Buffer = Buffer.alloc(0);
    const done = (status: number): void => {
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(status);
    };
    const onData = (chunk: Buffer): void => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      const end = responseEnd(buf);
      if (end !== null) done(end.status);
    };
    const onClose = (): void => {
      done(0);
    };
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(bytes);
  });
}

const latencies: number[] = [];
let errors = 0;
for (let i = 0; i < options.warmup + options.count; i += 1) {
  const start = performance.now();
  const status = await once();
  const us = (performance.now() - start) * 1000;
  if (status !== 200) {
    errors += 1;
    if (socket.destroyed) socket = await connect();
  } else if (i >= options.warmup) latencies.push(us);
}
socket.destroy();
process.stdout.write(
  `${JSON.stringify({ latency: true, count: latencies.length, errors, p50Us: percentile(latencies, 50), p99Us: percentile(latencies, 99), p999Us: percentile(latencies, 99.9) })}\n`,
);
