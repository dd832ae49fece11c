// A local webhook receiver for alert tests: records every POST and lets a test wait for one that matches.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Resolves with the first received call (already or later) that matches. */
  waitFor(match: (r: Received) => boolean, what: string, timeoutMs?: number): Promise<Received>;
  /** Answers the next `n` calls with `status` instead of 200. */
  failNext(n: number, status: number): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const waiters: { match: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  let failing = 0;
  let failStatus = 500;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (failing > 0) {
        failing--;
        res.writeHead(failStatus).end();
        return;
      }
      const r: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      };
      received.push(r);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      for (const w of [...waiters])
        if (w.match(r)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(r);
        }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    waitFor(match, what, timeoutMs = 15_000) {
      const found = received.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook call: ${what}`)), timeoutMs);
        waiters.push({
          match,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
      });
    },
    failNext(n, status) {
      failing = n;
      failStatus = status;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
