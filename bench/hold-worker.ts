// Opens N streaming requests at once and keeps them open: prints {"ready":N,...} once every stream has
// delivered its first byte (or failed), then {"done":N,...} when all have ended. The mock upstream
// parks the streams until the harness calls its /release, so the hold needs no timer.
import http from 'node:http';
import type { LoadRequest } from './lib/load.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  request: LoadRequest;
  streams: number;
  readyTimeoutMs: number;
};
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const state = { started: 0, failed: 0, completed: 0, reportedReady: false };

function reportReady(timedOut: boolean): void {
  if (state.reportedReady) return;
  state.reportedReady = true;
  clearTimeout(readyTimer);
  process.stdout.write(`${JSON.stringify({ ready: state.started, failed: state.failed, timedOut })}\n`);
}

// A proxy that queues streams behind a connection cap never gets them all started; report what did.
const readyTimer = setTimeout(reportReady, options.readyTimeoutMs, true);

function report(): void {
  const settledFirst = state.started + state.failed;
  if (!state.reportedReady && settledFirst >= options.streams) reportReady(false);
  if (state.completed + state.failed >= options.streams) {
    process.stdout.write(`${JSON.stringify({ done: state.completed, failed: state.failed })}\n`);
    agent.destroy();
  }
}

function open(): void {
  let first = true;
  const req = http.request(options.request.url, { method: 'POST', headers: options.request.headers, agent }, (res) => {
    if (res.statusCode !== 200) {
      state.failed += 1;
      res.resume();
      report();
      return;
    }
    res.on('data', () => {
      if (first) {
        first = false;
        state.started += 1;
        report();
      }
    });
    res.on('end', () => {
      state.completed += 1;
      report();
    });
  });
  req.on('error', () => {
    state.failed += 1;
    report();
  });
  req.end(options.request.body);
}

for (let i = 0; i < options.streams; i += 1) open();
