// The Node/V8 flags modelgate ships with, and what the gateway says at start when it runs without them.
//
// V8 sizes its young generation from the memory it sees: semi-spaces of 64 MB on a machine or container
// with 4 GB or more, 16 MB at 1 GB, and 1 MB at 512 MB. In a small container V8's own choice scavenges
// every few dozen requests and costs CPU; on a large machine 64 MB semi-spaces hold more memory for no
// CPU gain (BENCHMARKS.md).
// 16 MB is what `npm start` and the `modelgate` command set; a direct `node src/main.ts` launch should
// pass the same flags.
//
// `--single-threaded-gc`: V8 otherwise runs each scavenge and the old generation's marking on helper
// threads beside the main one. For a gateway whose young objects mostly die with their request, the
// helpers' hand-offs cost more CPU than they save: collecting on the main thread alone took 6 – 9 % less
// CPU a request under load, and lowered the latency tail at one connection (BENCHMARKS.md).
export const SHIPPED_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--single-threaded-gc'];

// glibc's malloc gives each thread that allocates an arena of its own (up to 8 a core): the usage writer
// thread, V8's helper threads and libuv's pool each keep freed memory in theirs. Two arenas hold less
// memory after load at no CPU cost (BENCHMARKS.md). glibc reads it once, at process start, so the launchers set
// it, both only when the operator has not (sh's ${VAR:-default}): `npm start` in its script, the
// `modelgate` command in the sh line Node reads as a comment (bin/modelgate.js). Other C libraries (musl)
// ignore it.
export const SHIPPED_MALLOC_ARENA_MAX = '2';

/** `env` with MALLOC_ARENA_MAX as the launchers leave it: the operator's own value if set, else the shipped one. */
export function withShippedEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.MALLOC_ARENA_MAX === undefined ? { ...env, MALLOC_ARENA_MAX: SHIPPED_MALLOC_ARENA_MAX } : env;
}

/**
 * What to tell an operator who started the gateway without MALLOC_ARENA_MAX (`node src/main.ts serve`, a
 * container image of their own), or null: set, or not glibc's malloc (`glibcVersion` answers undefined: musl,
 * macOS), which does not read it. The version is asked for only when the variable is unset: the launchers
 * set it, and Node's report that answers costs milliseconds.
 */
export function mallocArenaNote(facts: {
  mallocArenaMax: string | undefined;
  glibcVersion: () => string | undefined;
}): string | null {
  if (facts.mallocArenaMax !== undefined) return null;
  const glibc = facts.glibcVersion();
  if (glibc === undefined) return null;
  return `started without MALLOC_ARENA_MAX: glibc ${glibc} keeps a malloc arena per allocating thread, which held 13 – 33 MB more RSS after load (measured); \`npm start\` and the \`modelgate\` command set MALLOC_ARENA_MAX=${SHIPPED_MALLOC_ARENA_MAX}`;
}

/** glibc's version when Node runs on it, from Node's own diagnostic report (once, at start); else undefined. */
export function glibcRuntimeVersion(): string | undefined {
  // Without excludeNetwork the report resolves the names of open sockets' peers: a DNS wait at start.
  // (Node 22.13+; the installed @types/node predate it.)
  const reporter = process.report as NodeJS.ProcessReport & { excludeNetwork: boolean };
  const before = reporter.excludeNetwork;
  reporter.excludeNetwork = true;
  try {
    const report = reporter.getReport() as { header?: { glibcVersionRuntime?: unknown } };
    const version = report.header?.glibcVersionRuntime;
    return typeof version === 'string' ? version : undefined;
  } finally {
    reporter.excludeNetwork = before;
  }
}

/** Below this much memory V8 picks 1 MB semi-spaces unless told otherwise. */
const SMALL_CONTAINER_BYTES = 512 * 1024 * 1024;

const SEMI_SPACE_FLAG = /(?:^|\s)--max[-_]semi[-_]space[-_]size(?:[=\s]|$)/;

export interface YoungGenerationFacts {
  /** `process.execArgv`. */
  execArgv: readonly string[];
  /** `process.env.NODE_OPTIONS`. */
  nodeOptions: string | undefined;
  /** `process.constrainedMemory()`: the cgroup's limit in bytes, 0 or a huge number when there is none. */
  constrainedMemory: number;
}

export type YoungGenerationNote = { level: 'warn' | 'info'; message: string } | null;

/** Null when the young generation is set explicitly; otherwise what to tell the operator, and how loudly. */
export function youngGenerationNote(facts: YoungGenerationFacts): YoungGenerationNote {
  if (facts.execArgv.some((a) => SEMI_SPACE_FLAG.test(a)) || SEMI_SPACE_FLAG.test(facts.nodeOptions ?? '')) return null;
  const flags = SHIPPED_NODE_FLAGS.join(' ');
  if (facts.constrainedMemory > 0 && facts.constrainedMemory <= SMALL_CONTAINER_BYTES) {
    const mb = Math.round(facts.constrainedMemory / 1048576);
    return {
      level: 'warn',
      message: `started without ${flags} in a ${mb} MB container: V8 then sizes its young generation at 1 MB, which costs about a third more CPU a request in garbage collection (measured); start with \`npm start\`, the \`modelgate\` command, or node ${flags}`,
    };
  }
  return {
    level: 'info',
    message: `started without ${flags}: V8 sizes the young generation from the machine's memory (up to 64 MB semi-spaces, ≈ 100 MB more RSS under load for no measured CPU gain); \`npm start\` and the \`modelgate\` command set it`,
  };
}
