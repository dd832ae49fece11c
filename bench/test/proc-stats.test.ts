// /proc parsing and process-tree accounting used for CPU per request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Child, NODE } from '../lib/processes.ts';
import { cpuMicros, parseStat, processTree, rssBytes, ticksPerSecond } from '../lib/proc-stats.ts';

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
    const until = process.hrtime.bigint() + 60_000_000n;
    while (process.hrtime.bigint() < until) Math.sqrt(Math.random());
    assert.ok(cpuMicros([process.pid]) - before >= 30_000);
    assert.ok(rssBytes([process.pid]) > 10 * 1024 * 1024);
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
