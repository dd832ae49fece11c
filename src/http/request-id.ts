// Request ids: a per-process random prefix and a counter — unique, sortable within a process, and cheap.
import { randomBytes } from 'node:crypto';

const prefix = `req_${randomBytes(6).toString('hex')}`;
let counter = 0;

export function newRequestId(): string {
  counter = (counter + 1) % 0x7fffffff;
  return `${prefix}${counter.toString(36).padStart(6, '0')}`;
}
