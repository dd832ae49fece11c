// The harness's child processes: output is complete by the time exit() resolves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Child, NODE } from '../lib/processes.ts';

test('exit() resolves once the output is in, even when it comes after the exit itself', async () => {
  // The child exits at once; a grandchild holding the same stdout writes the summary line 200 ms later
  // (the order a loaded machine can produce: 'exit' before the last stdout data).
  const grandchild = `setTimeout(() => process.stdout.write('{"done":1}\\n'), 200)`;
  const child = new Child({
    name: 'writer',
    command: NODE,
    args: [
      '-e',
      `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'inherit', 'inherit'] }).unref(); process.exitCode = 0;`,
    ],
  });
  assert.equal(await child.exit(), 0);
  assert.deepEqual(await child.jsonLine('done', 10), { done: 1 });
});

test('jsonLine fails at once, naming the child, when it has closed without the line', async () => {
  const child = new Child({ name: 'quiet', command: NODE, args: ['-e', 'console.error("boom")'] });
  await child.exit();
  const started = Date.now();
  await assert.rejects(child.jsonLine('missing', 5000), /quiet printed no "missing" line \(boom; stdout: none\)/);
  assert.ok(Date.now() - started < 1000, 'no wait for the timeout once the pipes are closed');
});
