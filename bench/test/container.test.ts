// The container pass's pieces that need no root: the memory cgroup on a scratch file tree laid out as
// cgroup v1 and v2 mounts are, and the table.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryCgroup } from '../lib/memory-cgroup.ts';
import { containerRatio, containerTable } from '../lib/container-report.ts';
import type { ContainerRun } from '../lib/container-pass.ts';
import type { Rep } from '../lib/measure.ts';

const MB512 = 512 * 1024 * 1024;

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'cgroup-test-'));
}

/** A scratch directory laid out like a cgroup v1 mount with its memory hierarchy. */
function v1Root(): string {
  const root = scratch();
  mkdirSync(join(root, 'memory'));
  writeFileSync(join(root, 'memory', 'memory.limit_in_bytes'), '9223372036854771712');
  return root;
}

describe('createMemoryCgroup', () => {
  it('cgroup v1: a group under the memory hierarchy with its limit, and a wrapper that joins it', () => {
    const root = v1Root();
    const group = createMemoryCgroup({ name: 'g1', limitBytes: MB512, scriptDir: root, root, readProcCgroup: () => '4:memory:/g1\n1:cpu:/\n' });
    assert.ok(!('error' in group));
    assert.equal(group.dir, join(root, 'memory', 'g1'));
    assert.equal(readFileSync(join(group.dir, 'memory.limit_in_bytes'), 'utf8'), String(MB512));
    const script = readFileSync(group.wrapper[0], 'utf8');
    assert.match(script, new RegExp(`echo \\$\\$ > '${join(group.dir, 'cgroup.procs')}' \\|\\| exit 97`));
    assert.match(script, /exec "\$@"/);
    assert.equal(group.holds(1), true);
  });

  it('cgroup v2: memory.max in a group of the unified hierarchy', () => {
    const root = scratch();
    writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    const group = createMemoryCgroup({ name: 'g2', limitBytes: MB512, scriptDir: root, root, readProcCgroup: () => '0::/g2\n' });
    assert.ok(!('error' in group));
    assert.equal(readFileSync(join(root, 'g2', 'memory.max'), 'utf8'), String(MB512));
    assert.equal(group.holds(1), true);
    group.remove();
    assert.equal(existsSync(join(root, 'g2')), true, 'a group that still has files is left alone, not an error');
  });

  it('says why when there is no memory cgroup to make', () => {
    const none = createMemoryCgroup({ name: 'g', limitBytes: MB512, scriptDir: scratch(), root: scratch() });
    assert.match('error' in none ? none.error : '', /no memory cgroup/);
    const root = scratch();
    writeFileSync(join(root, 'cgroup.controllers'), 'cpu io pids\n');
    const noMemory = createMemoryCgroup({ name: 'g', limitBytes: MB512, scriptDir: root, root });
    assert.match('error' in noMemory ? noMemory.error : '', /without the memory controller/);
  });

  it('holds() is false for a process in another group or one that is gone', () => {
    const root = v1Root();
    const other = createMemoryCgroup({ name: 'g3', limitBytes: MB512, scriptDir: root, root, readProcCgroup: () => '4:memory:/elsewhere/g3x\n' });
    assert.ok(!('error' in other));
    assert.equal(other.holds(1), false);
    const gone = createMemoryCgroup({ name: 'g4', limitBytes: MB512, scriptDir: root, root, readProcCgroup: () => { throw new Error('ENOENT'); } });
    assert.ok(!('error' in gone));
    assert.equal(gone.holds(1), false);
  });
});

function rep(cpuUsPerReq: number): Rep {
  return { requests: 1000, rps: 1000, p50Us: 1000, p99Us: 2000, errors: 0, cpuUsPerReq };
}

describe('containerTable', () => {
  it('pairs each repetition and reports the median ratio', () => {
    const run: ContainerRun = { limitMb: 512, connections: 50, reps: [{ v8: rep(300), shipped: rep(200) }, { v8: rep(260), shipped: rep(200) }, { v8: rep(280), shipped: rep(250) }], rssV8Mb: 150, rssShippedMb: 170 };
    assert.equal(containerRatio(run), 1.3);
    const text = containerTable(run).join('\n');
    assert.match(text, /512 MB memory cgroup, 50 connections/);
    assert.match(text, /\| 1 \| 300\.0 \| 200\.0 \| 1\.50 \| 0 \|/);
    assert.match(text, /\| median \| 280\.0 \| 200\.0 \| 1\.30 \| \|/);
    assert.match(text, /V8's own 150\.0 MB, as shipped 170\.0 MB/);
  });

  it('is empty when the pass did not run', () => {
    assert.deepEqual(containerTable(null), []);
    assert.ok(Number.isNaN(containerRatio(null)));
  });
});
