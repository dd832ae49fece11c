#!/bin/sh
// 2>/dev/null; MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}" exec node --max-semi-space-size=16 "$0" "$@"
// npx modelgate … — runs the TypeScript entry point directly (Node 24 strips the types), with the
// Node flags modelgate ships with (src/runtime/node-flags.ts says why). The second line is a comment to
// Node and, to sh, the command that starts it: glibc reads MALLOC_ARENA_MAX when a process starts, so it
// is set before Node runs, and only where the operator has not set it (a shebang can only set it always).
import '../src/main.ts';
