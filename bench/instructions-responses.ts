// A short instruction pass for the translated Responses stream beside the translated messages stream
// (issue 36: its CPU per event stays within 1.2 × the messages stream's), on modelgate alone, with fewer
// requests than the full pass: `node bench/instructions-responses.ts [workDir]`. The full comparison is
// `npm run bench -- --instructions`.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInstructionPass } from './lib/instruction-pass.ts';
import { perRequest } from './lib/instruction-report.ts';
import { STREAM_EVENTS } from './lib/scenarios.ts';

const workDir = process.argv[2] ?? join(tmpdir(), `modelgate-instructions-${process.pid}`);
const cells = await runInstructionPass({
  workDir,
  chat: { warmup: 500, count: 300 },
  streams: { warmup: 300, count: 60 },
  pacingMs: 3,
  log: (line) => console.log(line),
  kinds: ['chat', 'messages-stream', 'responses-stream'],
  targets: ['modelgate'],
});
const perEvent = (kind: 'messages-stream' | 'responses-stream'): number => (perRequest(cells, 'modelgate', kind) - perRequest(cells, 'modelgate', 'chat')) / STREAM_EVENTS;
const messages = perEvent('messages-stream');
const responses = perEvent('responses-stream');
console.log(`per event beyond a non-streamed answer: messages ${Math.round(messages)}, responses ${Math.round(responses)}, ratio ${(responses / messages).toFixed(2)}`);
