// /proc parsing and process-tree accounting used for CPU per request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Child, NODE } from '../lib/processes.ts';
import { Worker } from 'node:worker_threads';
import {
  cpuMicros,
  helperCpuMicros,
  helperCpuSplit,
  parseStat,
  processTree,
  rssBytes,
  ticksPerSecond,
} from '../lib/proc-stats.ts';

// The worker spins until its own thread has burnt 200 ms of CPU (read from /proc), not for a wall-clock
// span: on a loaded machine a thread may get little CPU in any given 150 ms.
const SPIN_THREAD = `
const { parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const ticks = () => { const s = readFileSync('/proc/thread-self/stat', 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return Number(f[11]) + Number(f[12]); };
const start = ticks();
while (ticks() - start < 20) for (let i = 0; i < 1e5; i++) Math.sqrt(Math.random());
parentPort.postMessage('spun');
setInterval(() => {}, 1000);`;

describe('proc stats', () => {
  it('parses utime+stime after a command name holding spaces and parentheses', () => {
    const line = '1234 (node (a) b) S 77 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 11 0 999 1000 2000';
    assert.deepEqual(parseStat(line), { ppid: 77, cpuTicks: 300 });
  });

  it('reads clock ticks from getconf', () => {
    assert.ok(ticksPerSecond() >= 100);
  });

  it('counts CPU this process burns and its memory', () => {
    const before = cpuMicros([process.pid]);
    // Spins until the process has burnt 60 ms of CPU by its own account, not for a wall-clock span: on a
    // loaded machine it may get little CPU in any given 60 ms.
    const start = process.cpuUsage();
    const burnt = (): number => {
      const u = process.cpuUsage(start);
      return u.user + u.system;
    };
    while (burnt() < 60_000) for (let i = 0; i < 1e4; i++) Math.sqrt(Math.random());
    assert.ok(cpuMicros([process.pid]) - before >= 30_000);
    assert.ok(rssBytes([process.pid]) > 10 * 1024 * 1024);
  });

  it("counts a helper thread's CPU apart from the main thread's", async () => {
    const spin = (ms: number): void => {
      const until = process.hrtime.bigint() + BigInt(ms) * 1_000_000n;
      while (process.hrtime.bigint() < until) Math.sqrt(Math.random());
    };
    const mainBefore = helperCpuMicros([process.pid]);
    spin(100);
    assert.ok(helperCpuMicros([process.pid]) - mainBefore < 50_000, "the main thread's spin is not a helper's");
    const before = helperCpuMicros([process.pid]);
    // A thread's time leaves /proc/<pid>/task with it, so the worker spins, says so, and waits to be ended.
    const worker = new Worker(SPIN_THREAD, { eval: true });
    try {
      await new Promise((resolve) => worker.once('message', resolve));
      assert.ok(helperCpuMicros([process.pid]) - before >= 100_000, "the worker thread's spin is counted");
    } finally {
      await worker.terminate();
    }
  });

  it('counts the CPU of threads with a given name only', async () => {
    const worker = new Worker(SPIN_THREAD, { eval: true, name: 'spinner-test' });
    try {
      await new Promise((resolve) => worker.once('message', resolve));
      const split = helperCpuSplit([process.pid], 'spinner-test');
      assert.ok(split.named >= 100_000, "the named thread's spin is counted");
      assert.ok(split.helpers >= split.named, 'the named thread is one of the helpers');
      assert.equal(helperCpuSplit([process.pid], 'no-such-thread').named, 0);
    } finally {
      await worker.terminate();
    }
  });

  it('finds a child in the process tree', async () => {
    const child = new Child({ name: 'sleeper', command: NODE, args: ['-e', 'setInterval(() => {}, 1000)'] });
    try {
      assert.ok(processTree(process.pid).includes(child.pid));
    } finally {
      await child.stop();
    }
  });
});
