#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=16
// npx modelgate … — runs the TypeScript entry point directly (Node 24 strips the types), with the
// Node flags modelgate ships with (src/runtime/node-flags.ts says why).
import '../src/main.ts';
