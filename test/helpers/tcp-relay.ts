// A TCP relay in front of a real server (Redis, PostgreSQL) that a test can cut — every connection
// dropped, new ones refused — and restore, to see the gateway through an outage of that server.
import net from 'node:net';
import { once } from 'node:events';

export interface TcpRelay {
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function tcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  let open = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    async close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
