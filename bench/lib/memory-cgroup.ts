// A memory cgroup to start a process in, as a container with a memory limit would: Node reads the
// limit at start (`process.constrainedMemory()`) and V8 sizes its heap from it. cgroup v2 (a unified
// hierarchy with the memory controller) or v1 (a `memory` hierarchy); needs write access to it, which
// root has on these machines. A process joins through a wrapper script that writes its own pid into
// the group and then execs the command, so the limit holds from the process's first instruction.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MemoryCgroup {
  /** Path of the group's directory. */
  dir: string;
  /** Prefix for a command line: runs the command inside the group. */
  wrapper: string[];
  /** Whether `pid` runs inside this group (read from /proc/<pid>/cgroup). */
  holds(pid: number): boolean;
  /** Removes the group; its processes must have exited. */
  remove(): void;
}

export interface MemoryCgroupOptions {
  name: string;
  limitBytes: number;
  /** Where the wrapper script is written. */
  scriptDir: string;
  /** The cgroup file system's mount point (tests pass a scratch directory). */
  root?: string;
  /** /proc/<pid>/cgroup reader (tests pass their own). */
  readProcCgroup?: (pid: number) => string;
}

/** Creates the group, or says why it cannot (no cgroup file system, no memory controller, no permission). */
export function createMemoryCgroup(options: MemoryCgroupOptions): MemoryCgroup | { error: string } {
  const root = options.root ?? '/sys/fs/cgroup';
  const layout = cgroupLayout(root);
  if ('error' in layout) return layout;
  const dir = join(layout.parent, options.name);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, layout.limitFile), String(options.limitBytes));
  } catch (error) {
    return { error: `cannot create the memory cgroup ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); it needs root` };
  }
  const procs = join(dir, 'cgroup.procs');
  const script = join(options.scriptDir, `${options.name}.sh`);
  // The exit status 97 tells the harness the wrapper, not the command, failed.
  writeFileSync(script, `#!/bin/sh\necho $$ > '${procs}' || exit 97\nexec "$@"\n`);
  chmodSync(script, 0o755);
  const readProcCgroup = options.readProcCgroup ?? ((pid: number) => readFileSync(`/proc/${pid}/cgroup`, 'utf8'));
  const relative = `/${options.name}`;
  return {
    dir,
    wrapper: [script],
    holds: (pid) => {
      try {
        return readProcCgroup(pid).split('\n').some((line) => line.endsWith(relative) && (layout.version === 2 ? line.startsWith('0::') : /:memory(?:,|:)/.test(line)));
      } catch {
        return false;
      }
    },
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        // A group that still holds a process (or is gone already) is left for the system.
      }
    },
  };
}

type Layout = { version: 1 | 2; parent: string; limitFile: string } | { error: string };

function cgroupLayout(root: string): Layout {
  const controllers = join(root, 'cgroup.controllers');
  if (existsSync(controllers)) {
    if (!readFileSync(controllers, 'utf8').split(/\s+/).includes('memory')) return { error: 'cgroup v2 without the memory controller' };
    return { version: 2, parent: root, limitFile: 'memory.max' };
  }
  const v1 = join(root, 'memory');
  if (existsSync(join(v1, 'memory.limit_in_bytes'))) return { version: 1, parent: v1, limitFile: 'memory.limit_in_bytes' };
  return { error: `no memory cgroup under ${root}` };
}
