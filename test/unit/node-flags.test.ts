// The flags modelgate ships with: one list, used by every launcher, and the start-up note without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SHIPPED_NODE_FLAGS, youngGenerationNote } from '../../src/runtime/node-flags.ts';

const ROOT = new URL('../../', import.meta.url);
const flags = SHIPPED_NODE_FLAGS.join(' ');

test('npm start and the modelgate command pass the shipped flags', () => {
  const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: Record<string, string> };
  // `exec`: npm's shell hands the process over to Node, so a supervisor's SIGTERM reaches the gateway.
  assert.equal(pkg.scripts.start, `exec node ${flags} src/main.ts serve`);
  const bin = readFileSync(new URL('bin/modelgate.js', ROOT), 'utf8');
  assert.equal(bin.split('\n')[0], `#!/usr/bin/env -S node ${flags}`);
});

const GB = 1024 ** 3;
const NONE = 2 ** 53; // what process.constrainedMemory() reports without a cgroup limit

test('youngGenerationNote: silent when the semi-space size is set, by argv or NODE_OPTIONS', () => {
  for (const [execArgv, nodeOptions] of [
    [['--max-semi-space-size=16'], undefined],
    [['--max_semi_space_size=8'], undefined],
    [['--max-semi-space-size', '32'], undefined],
    [[], '--max-semi-space-size=16'],
    [[], '--enable-source-maps --max-semi-space-size=4'],
  ] as Array<[string[], string | undefined]>) {
    assert.equal(youngGenerationNote({ execArgv, nodeOptions, constrainedMemory: GB / 2 }), null, `${execArgv.join(' ')} | ${nodeOptions}`);
  }
});

test('youngGenerationNote: a warning in a small container, a note elsewhere', () => {
  const small = youngGenerationNote({ execArgv: [], nodeOptions: undefined, constrainedMemory: GB / 2 });
  assert.equal(small?.level, 'warn');
  assert.match(small?.message ?? '', /512 MB container/);
  assert.match(small?.message ?? '', /--max-semi-space-size=16/);
  for (const constrainedMemory of [0, NONE, GB, 16 * GB]) {
    assert.equal(youngGenerationNote({ execArgv: ['--enable-source-maps'], nodeOptions: '--max-old-space-size=2048', constrainedMemory })?.level, 'info', String(constrainedMemory));
  }
  assert.equal(youngGenerationNote({ execArgv: ['--max-semi-space-size-x=1'], nodeOptions: undefined, constrainedMemory: NONE })?.level, 'info', 'a longer flag name is not the flag');
});
