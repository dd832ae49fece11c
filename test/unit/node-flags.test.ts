// The flags modelgate ships with: one list, used by every launcher, and the start-up note without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  SHIPPED_MALLOC_ARENA_MAX,
  SHIPPED_NODE_FLAGS,
  glibcRuntimeVersion,
  mallocArenaNote,
  withShippedEnvironment,
  youngGenerationNote,
} from '../../src/runtime/node-flags.ts';

const ROOT = new URL('../../', import.meta.url);
const flags = SHIPPED_NODE_FLAGS.join(' ');

test('npm start and the modelgate command pass the shipped flags', () => {
  const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: Record<string, string> };
  // `exec`: npm's shell hands the process over to Node, so a supervisor's SIGTERM reaches the gateway.
  // MALLOC_ARENA_MAX is read by glibc at process start: npm's shell sets it unless the operator did.
  assert.equal(
    pkg.scripts.start,
    `MALLOC_ARENA_MAX=\${MALLOC_ARENA_MAX:-${SHIPPED_MALLOC_ARENA_MAX}} exec node ${flags} src/main.ts serve`,
  );
  const bin = readFileSync(new URL('bin/modelgate.js', ROOT), 'utf8');
  assert.equal(bin.split('\n')[0], '#!/bin/sh');
  assert.equal(
    bin.split('\n')[1],
    `// 2>/dev/null; MALLOC_ARENA_MAX="\${MALLOC_ARENA_MAX:-${SHIPPED_MALLOC_ARENA_MAX}}" exec node ${flags} "$0" "$@"`,
  );
});

test('the modelgate command sets MALLOC_ARENA_MAX unless the operator did, and hands Node the flags, itself and its arguments', () => {
  // A `node` that prints what it was given, first on the PATH.
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-bin-'));
  try {
    writeFileSync(join(dir, 'node'), '#!/bin/sh\necho "$MALLOC_ARENA_MAX $*"\n', { mode: 0o755 });
    const bin = fileURLToPath(new URL('bin/modelgate.js', ROOT));
    const { MALLOC_ARENA_MAX: _unset, ...without } = process.env;
    const run = (env: NodeJS.ProcessEnv) =>
      execFileSync(bin, ['keys', 'list'], {
        env: { ...env, PATH: `${dir}:${env.PATH ?? ''}` },
        encoding: 'utf8',
      }).trim();
    assert.equal(run(without), `${SHIPPED_MALLOC_ARENA_MAX} ${flags} ${bin} keys list`);
    assert.equal(run({ ...without, MALLOC_ARENA_MAX: '8' }), `8 ${flags} ${bin} keys list`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the modelgate command runs the gateway's CLI on Node 24", () => {
  const bin = fileURLToPath(new URL('bin/modelgate.js', ROOT));
  // npm puts node_modules/.bin (the pinned Node) first on the PATH of its scripts and of npx.
  const out = execFileSync(bin, ['--help'], {
    env: { ...process.env, PATH: `${fileURLToPath(new URL('node_modules/.bin', ROOT))}:${process.env.PATH ?? ''}` },
    encoding: 'utf8',
  });
  assert.match(out, /modelgate serve/);
});

test("npm start's shell sets MALLOC_ARENA_MAX for Node unless the operator set it", () => {
  const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: Record<string, string> };
  // The script with Node swapped for a command that prints the variable, run by sh as npm runs it.
  const script = pkg.scripts.start.replace(/exec node .*$/, 'exec printenv MALLOC_ARENA_MAX');
  const run = (env: NodeJS.ProcessEnv) => execFileSync('sh', ['-c', script], { env, encoding: 'utf8' }).trim();
  const { MALLOC_ARENA_MAX: _unset, ...without } = process.env;
  assert.equal(run(without), SHIPPED_MALLOC_ARENA_MAX);
  assert.equal(run({ ...without, MALLOC_ARENA_MAX: '8' }), '8');
});

test('withShippedEnvironment: the shipped MALLOC_ARENA_MAX only where none is set', () => {
  assert.equal(withShippedEnvironment({ PATH: '/bin' }).MALLOC_ARENA_MAX, SHIPPED_MALLOC_ARENA_MAX);
  assert.equal(withShippedEnvironment({ MALLOC_ARENA_MAX: '4' }).MALLOC_ARENA_MAX, '4');
  const env = { PATH: '/bin' };
  withShippedEnvironment(env);
  assert.deepEqual(env, { PATH: '/bin' }, "the caller's object is left alone");
});

test('mallocArenaNote: a note on glibc without MALLOC_ARENA_MAX, silence otherwise', () => {
  const note = mallocArenaNote({ mallocArenaMax: undefined, glibcVersion: () => '2.36' });
  assert.ok(note !== null);
  assert.match(note, /started without MALLOC_ARENA_MAX: glibc 2\.36 /);
  assert.match(note, new RegExp(`MALLOC_ARENA_MAX=${SHIPPED_MALLOC_ARENA_MAX}$`));
  assert.equal(mallocArenaNote({ mallocArenaMax: '2', glibcVersion: () => '2.36' }), null, 'set by a launcher');
  assert.equal(mallocArenaNote({ mallocArenaMax: '8', glibcVersion: () => '2.36' }), null, "the operator's own value");
  assert.equal(
    mallocArenaNote({ mallocArenaMax: undefined, glibcVersion: () => undefined }),
    null,
    'musl and macOS do not read it',
  );
});

test("glibcRuntimeVersion: Node's report says the version, and the report's network setting is left as it was", () => {
  const reporter = process.report as NodeJS.ProcessReport & { excludeNetwork: boolean };
  const before = reporter.excludeNetwork;
  const version = glibcRuntimeVersion();
  assert.equal(reporter.excludeNetwork, before);
  // On glibc Linux (these machines, CI) a version; elsewhere nothing.
  if (
    process.platform === 'linux' &&
    (reporter.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime !== undefined
  ) {
    assert.match(version ?? '', /^\d+\.\d+/);
  } else {
    assert.equal(version, undefined);
  }
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
    assert.equal(
      youngGenerationNote({ execArgv, nodeOptions, constrainedMemory: GB / 2 }),
      null,
      `${execArgv.join(' ')} | ${nodeOptions}`,
    );
  }
});

test('youngGenerationNote: a warning in a small container, a note elsewhere', () => {
  const small = youngGenerationNote({ execArgv: [], nodeOptions: undefined, constrainedMemory: GB / 2 });
  assert.equal(small?.level, 'warn');
  assert.match(small?.message ?? '', /512 MB container/);
  assert.match(small?.message ?? '', /--max-semi-space-size=16/);
  for (const constrainedMemory of [0, NONE, GB, 16 * GB]) {
    assert.equal(
      youngGenerationNote({
        execArgv: ['--enable-source-maps'],
        nodeOptions: '--max-old-space-size=2048',
        constrainedMemory,
      })?.level,
      'info',
      String(constrainedMemory),
    );
  }
  assert.equal(
    youngGenerationNote({ execArgv: ['--max-semi-space-size-x=1'], nodeOptions: undefined, constrainedMemory: NONE })
      ?.level,
    'info',
    'a longer flag name is not the flag',
  );
});
