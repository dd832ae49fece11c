#!/bin/sh
// 2>/dev/null; MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}" exec node --max-semi-space-size=16 --single-threaded-gc "$0" "$@"
// npx modelgate … — runs the TypeScript entry point directly (Node 24 strips the types), with the
// Node flags modelgate ships with (src/runtime/node-flags.ts says why). The second line is a comment to
// Node and, to sh, the command that starts it: glibc reads MALLOC_ARENA_MAX when a process starts, so it
// is set before Node runs, and only where the operator has not set it (a shebang can only set it always).
// This file is plain JavaScript any Node parses: an older Node gets a sentence instead of failing to load
// a .ts file (ERR_UNKNOWN_FILE_EXTENSION), and the entry point is imported only once the version fits.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `modelgate needs Node.js 24 or newer; this is Node.js ${process.version} (${process.execPath}). ` +
      'Install Node.js 24 (https://nodejs.org), or run the container image.',
  );
  process.exit(1);
}
await import('../src/main.ts');
