// Preloaded into a Node proxy for the harness's stage pass (`node --import bench/stage-timer.ts …`):
// records the moments of lib/stages.ts, one request at a time. On SIGUSR2 it writes the summary of what
// it recorded since the last SIGUSR2 to $STAGE_TIMER_OUT and starts afresh, so the harness can drop
// the warm-up and read one repetition at a time. Not loaded in any other scenario: wrapping
// ServerResponse's write costs a little on every write.
import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { CLIENT_WRITE, REQUEST_START, UPSTREAM_HEADERS, UPSTREAM_WRITTEN, summarizeStages } from './lib/stages.ts';

const out = process.env.STAGE_TIMER_OUT;
if (out === undefined || out === '') throw new Error('bench/stage-timer.ts needs STAGE_TIMER_OUT');

let events: number[] = [];
let seq = 0;
const now = (): number => Number(process.hrtime.bigint());

dc.subscribe('http.server.request.start', () => void events.push(REQUEST_START, now()));
dc.subscribe('undici:client:sendHeaders', () => void events.push(UPSTREAM_WRITTEN, now()));
dc.subscribe('undici:request:headers', () => void events.push(UPSTREAM_HEADERS, now()));

// A WeakSet rather than a property on the response: an added property changes node:http's object shapes.
const written = new WeakSet<object>();
const proto = http.ServerResponse.prototype;
const write = proto.write;
const end = proto.end;
function firstWrite(res: object): void {
  if (written.has(res)) return;
  written.add(res);
  events.push(CLIENT_WRITE, now());
}
proto.write = function (this: http.ServerResponse, ...args: unknown[]) {
  firstWrite(this);
  return (write as (...a: unknown[]) => boolean).apply(this, args);
} as typeof proto.write;
proto.end = function (this: http.ServerResponse, ...args: unknown[]) {
  firstWrite(this);
  return (end as (...a: unknown[]) => http.ServerResponse).apply(this, args);
} as typeof proto.end;

process.on('SIGUSR2', () => {
  seq += 1;
  writeFileSync(out, JSON.stringify(summarizeStages(events, seq)));
  events = [];
});
