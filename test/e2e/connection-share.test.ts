// One client address cannot lock others out: its connections are capped at max_connections_per_address,
// a socket that never finishes its headers is answered 408 and closed after client_header_timeout_ms,
// and the slot is free again even when the client never closes its side.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { startGateway, configYaml, type GatewayProcess } from '../helpers/gateway-process.ts';

let gw: GatewayProcess;
before(async () => {
  gw = await startGateway({
    configYaml: configYaml({
      models: '  - { name: gpt-mock, deployments: [ { provider: mock, model: gpt-mock } ] }',
      extra: 'max_connections: 20\nmax_connections_per_address: 8\nclient_header_timeout_ms: 600',
    }),
  });
});
after(async () => gw.cleanup());

async function connectedFrom(localAddress: string, allowHalfOpen = false): Promise<net.Socket> {
  const socket = net.connect({ port: gw.port, host: '127.0.0.1', localAddress, allowHalfOpen });
  // A socket past its address's share is refused as soon as it is accepted, which can come before the
  // client has seen its own connect: either ends the wait.
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    socket.once('connect', resolve);
    socket.once('error', () => resolve());
  });
  return socket;
}

/** GET /healthz on a new connection from `localAddress`: the status line, '' when closed unanswered. */
async function healthz(localAddress: string): Promise<string> {
  const socket = await connectedFrom(localAddress);
  let got = '';
  socket.on('data', (d: Buffer) => {
    got += d.toString('latin1');
    if (got.includes('"status":"ok"')) socket.destroy();
  });
  socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
  // A refused connection may end in a reset: a close like any other here (once() would throw on 'error').
  await new Promise((resolve) => socket.once('close', resolve));
  return got.split('\r\n')[0] ?? '';
}

test('half-sent requests from one address neither keep another address out nor hold their slots past the header deadline', async () => {
  const attacker: { socket: net.Socket; received: string; ended: Promise<unknown> }[] = [];
  for (let i = 0; i < 30; i++) {
    const socket = await connectedFrom('127.0.0.3', true);
    // Closed by the gateway: a FIN after its answer, or a reset when refused with the request unread.
    const ended = socket.destroyed
      ? Promise.resolve()
      : new Promise((resolve) => {
          socket.once('end', resolve);
          socket.once('close', resolve);
        });
    const entry = { socket, received: '', ended };
    socket.on('data', (d: Buffer) => {
      entry.received += d.toString('latin1');
    });
    // Half a request, never finished, and the attacker never closes its side.
    socket.write('POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n');
    attacker.push(entry);
  }
  try {
    // Another address is served while the attacker holds everything it was given.
    for (let i = 0; i < 5; i++) assert.equal(await healthz('127.0.0.2'), 'HTTP/1.1 200 OK');
    // Every attacker socket is answered and closed: refused at once past its share, 408 after the deadline.
    await Promise.all(attacker.map((a) => a.ended));
    const timedOut = attacker.filter((a) => a.received.startsWith('HTTP/1.1 408 '));
    assert.ok(timedOut.length >= 1 && timedOut.length <= 8, `408s: ${timedOut.length}`);
    assert.equal(attacker.filter((a) => a.received === '').length, 30 - timedOut.length);
    // The gateway closed those sockets itself (the attacker never did): the address is served again.
    let status = '';
    for (let i = 0; i < 50 && status !== 'HTTP/1.1 200 OK'; i++) status = await healthz('127.0.0.3');
    assert.equal(status, 'HTTP/1.1 200 OK');
    // Its share is whole again: eight at once are all served.
    const eight = await Promise.all(Array.from({ length: 8 }, () => healthz('127.0.0.3')));
    assert.deepEqual(eight, Array(8).fill('HTTP/1.1 200 OK'));
  } finally {
    for (const a of attacker) a.socket.destroy();
  }
});

test('with every slot taken by idle keep-alive connections a new client is served, an idle one making room', async () => {
  // Keep-alive connections from several addresses, each idle after one answered request.
  const idle: net.Socket[] = [];
  for (let i = 0; i < 20; i++) {
    const socket = await connectedFrom(`127.0.1.${1 + (i % 5)}`);
    const answered = new Promise<void>((resolve) => {
      let got = '';
      socket.on('data', (d: Buffer) => {
        got += d.toString('latin1');
        if (got.includes('"status":"ok"')) resolve();
      });
    });
    socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
    await answered;
    idle.push(socket);
  }
  const closed = Promise.race(idle.map((s) => once(s, 'close')));
  try {
    // The cap is reached by idle connections: a new client is still served, an idle one making room.
    assert.equal(await healthz('127.0.0.4'), 'HTTP/1.1 200 OK');
    await closed;
  } finally {
    for (const s of idle) s.destroy();
  }
});
