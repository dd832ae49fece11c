// Who may hold the server's client connections. `max_connections` bounds them all; each client address
// (an IPv6 address by its /64, the block one host is usually given) holds at most
// `max_connections_per_address` of them, so one address can never take the last slots. When the cap is
// reached, connections idle between keep-alive requests are closed to make room before a new one is
// refused. The counting is one Map update as a connection opens and one as it closes, never per request.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { isIPv6 } from 'node:net';

export interface ConnectionGuardOptions {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Whether a socket sits between requests (its last response finished, no next one begun). */
  idle: (socket: Socket) => boolean;
  /** A connection closed unanswered because the cap or the address's share is full. */
  dropped: (reason: 'max_connections' | 'max_connections_per_address') => void;
}

const GROUP = Symbol('modelgate.addressGroup');
type Grouped = Socket & { [GROUP]?: string };

/**
 * The address a connection counts against: an IPv4 address (IPv4-mapped IPv6 included) as itself, an
 * IPv6 address by its first 64 bits.
 */
export function addressGroup(address: string | undefined): string {
  if (address === undefined) return '';
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!isIPv6(address)) return address;
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  const [head, tail = ''] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = bare.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = bare.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')
    .concat('::/64');
}

/** Installs the cap on `server` (Node's own maxConnections stays unset: this guard counts instead). */
export function guardConnections(server: Server, o: ConnectionGuardOptions): void {
  const perAddress = new Map<string, number>();
  const open = new Set<Socket>();
  server.on('connection', (socket: Grouped) => {
    const group = addressGroup(socket.remoteAddress);
    const held = perAddress.get(group) ?? 0;
    if (held >= o.maxConnectionsPerAddress) {
      o.dropped('max_connections_per_address');
      socket.destroy();
      return;
    }
    if (open.size >= o.maxConnections && !closeOneIdle(open, o.idle)) {
      o.dropped('max_connections');
      socket.destroy();
      return;
    }
    socket[GROUP] = group;
    perAddress.set(group, held + 1);
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      const left = (perAddress.get(group) ?? 1) - 1;
      if (left === 0) perAddress.delete(group);
      else perAddress.set(group, left);
    });
  });
}

/** Closes one connection idle between keep-alive requests; false when every connection is busy. */
function closeOneIdle(open: Set<Socket>, idle: (socket: Socket) => boolean): boolean {
  for (const socket of open) {
    if (!idle(socket)) continue;
    open.delete(socket);
    socket.destroy();
    return true;
  }
  return false;
}
