// The instruction pass: the dump parser and the table on literal input, and the counter against a real
// process under callgrind (catches a changed dump format or callgrind_control option).
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CallgrindCounter, callgrindMissing, callgrindWrapper, compilerLine, dumpSummary } from '../lib/callgrind.ts';
import type { InstructionCell } from '../lib/instruction-pass.ts';
import { chatInstructionRatio, instructionTable } from '../lib/instruction-report.ts';
import { Child, nodeLaunch } from '../lib/processes.ts';
import { emptyRunResults, headline, renderResults } from '../lib/report.ts';
import type { RunResults } from '../lib/report.ts';

const cells: InstructionCell[] = [
  { target: 'modelgate', kind: 'chat', requests: 100, instructions: 62_000_000, compiling: 12_000_000, errors: 0 },
  { target: 'modelgate', kind: 'chat-stream', requests: 100, instructions: 150_000_000, errors: 0 },
  { target: 'modelgate', kind: 'messages-stream', requests: 100, instructions: 200_000_000, errors: 0 },
  { target: 'bare-proxy', kind: 'chat', requests: 100, instructions: 40_000_000, errors: 0 },
  { target: 'bare-proxy', kind: 'chat-stream', requests: 100, instructions: 92_000_000, errors: 0 },
];

const PLAN = { chat: { warmup: 1500, count: 500 }, streams: { warmup: 200, count: 100 }, pacingMs: 3 };

function run(instructions: InstructionCell[]): RunResults {
  return {
    ...emptyRunResults({ date: '2026-01-01', mode: 'full', header: [], skipped: [], instructionPlan: PLAN }),
    instructions,
  };
}

describe('instruction pass, on literal input', () => {
  it('reads the instructions of one dump from its summary line, not the running total', () => {
    const dump =
      'version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 28989260\n\nfn=(1) main\n5 28989260\ntotals: 127258482\n';
    assert.equal(dumpSummary(dump), 28_989_260);
    assert.throws(() => dumpSummary('events: Ir\ntotals: 5\n'), /no "summary:" line/);
  });

  it("reads what V8's optimising compilers ran from callgrind_annotate's inclusive line", () => {
    const annotated = [
      '216,668,151 (100.0%)  PROGRAM TOTALS',
      ' 52,888,398 (24.41%)  ???:v8::internal::(anonymous namespace)::CompileOptimized(v8::internal::DirectHandle<v8::internal::JSFunction>) [/node]',
      ' 52,883,874 (24.41%)  ???:v8::internal::Compiler::CompileOptimized(v8::internal::Isolate*, v8::internal::DirectHandle<v8::internal::JSFunction>) [/node]',
    ].join('\n');
    assert.equal(compilerLine(annotated), 52_883_874);
    assert.equal(compilerLine('216,668,151 (100.0%)  PROGRAM TOTALS\n'), 0);
  });

  it('tables instructions per request, the ratio, and per event beyond a non-streamed answer', () => {
    const text = instructionTable(cells, PLAN).join('\n');
    // Once optimised (62 M − 12 M compiling over 100 requests), then as counted.
    assert.match(text, /\| Non-streaming chat \| 500,000 \| 400,000 \| 1\.25 × \| 620,000 \| 400,000 \|/);
    assert.match(text, /\| Streaming chat \(52 events\) \| 1,500,000 \| 920,000 \| 1\.63 × \|/);
    // (1,500,000 − 500,000) / 52 and (920,000 − 400,000) / 52
    assert.match(
      text,
      /\| Streaming chat \(52 events\), per event beyond a non-streamed answer \| 19,231 \| 10,000 \| 1\.92 × \|/,
    );
    assert.match(
      text,
      /translated from an OpenAI-style upstream \(52 events\) \| 2,000,000 \| — \| — \| 2,000,000 \| — \|/,
    );
    assert.match(
      text,
      /500 non-streamed requests after 1,500 warm-up ones, and 100 streams of each kind after 200 unpaced ones, from a mock sending a counted stream's events 3 ms apart/,
    );
    assert.deepEqual(instructionTable([], PLAN), []);
    assert.deepEqual(instructionTable(cells, null), []);
  });

  it('judges the non-streaming instruction ratio in the headline, and leaves it unjudged without a pass', () => {
    assert.equal(chatInstructionRatio(cells), 1.25);
    assert.match(
      headline(run(cells)).join('\n'),
      /\| the same in instructions \(callgrind, one request at a time\) \| 1\.25 × \| 400,000 instr\/req \| met \|/,
    );
    const heavier = cells.map((c) =>
      c.target === 'modelgate' && c.kind === 'chat' ? { ...c, instructions: 72_000_000 } : c,
    );
    assert.match(headline(run(heavier)).join('\n'), /\| 1\.50 × \| 400,000 instr\/req \| \*\*missed\*\* \|/);
    assert.match(
      headline(run([])).join('\n'),
      /\| the same in instructions \(callgrind, one request at a time\) \| — \| — \| not measured \|/,
    );
    assert.match(renderResults(run(cells)), /### Instructions per request under callgrind/);
  });
});

const missing = callgrindMissing();
describe('instruction pass, under a real callgrind', { skip: missing ?? false }, () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'modelgate-callgrind-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts only the stretch it is asked to, and refuses a second one', async () => {
    const out = join(dir, 'cg.out');
    // Each request does the same fixed work, so counted instructions grow with the requests served.
    const server =
      "const s=require('http').createServer((q,r)=>{let x=0;for(let i=0;i<200000;i++)x+=i%7;r.end(String(x))});s.listen(0,'127.0.0.1',()=>console.log(JSON.stringify({port:s.address().port})))";
    const child = new Child({ name: 'callgrind-test', ...nodeLaunch(['-e', server], callgrindWrapper(out)) });
    after(() => child.stop());
    const port = await child.portLine(60_000);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    after(() => agent.destroy());
    const get = (): Promise<void> =>
      new Promise((resolve, reject) =>
        http.get({ host: '127.0.0.1', port, agent }, (res) => res.resume().on('end', resolve)).on('error', reject),
      );
    const serve = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i += 1) await get();
    };
    await serve(40); // warm-up, not counted
    const counter = new CallgrindCounter(child.pid, out);
    const { instructions: counted, compiling } = await counter.count(() => serve(10));
    // Ten requests of a 200,000-step loop: over 2 M instructions (~35 M seen). Node's start-up alone is
    // ~90 M and the 40 warm-up requests ~140 M, so a count that took either in would be far above 60 M.
    assert.ok(counted > 10 * 200_000 && counted < 60_000_000, `10 requests counted ${counted} instructions`);
    assert.ok(compiling >= 0 && compiling < counted, `compiling ${compiling} of ${counted}`);
    await assert.rejects(
      counter.count(() => serve(1)),
      /one stretch per process/,
    );
  });
});
