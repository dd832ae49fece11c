// CPU time and resident memory of a process tree, read from /proc — the steady metric on a shared
// machine: a proxy's CPU per request does not drift with what else the two cores are doing.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

let clockTicks: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`), 100 when getconf is missing. */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

export interface StatFields {
  ppid: number;
  /** utime + stime, in clock ticks. */
  cpuTicks: number;
}

/** Parses one /proc/<pid>/stat line; the command name may hold spaces and parentheses, so fields start after the last `)`. */
export function parseStat(line: string): StatFields {
  const rest = line.slice(line.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  return { ppid: Number(rest[1]), cpuTicks: Number(rest[11]) + Number(rest[12]) };
}

function readStat(pid: number): StatFields | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The pid and all its live descendants (nginx workers, a launcher's child). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (stat === undefined) continue;
    const list = children.get(stat.ppid);
    if (list === undefined) children.set(stat.ppid, [pid]);
    else list.push(pid);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** utime+stime of the given pids, in microseconds. */
export function cpuMicros(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) ticks += readStat(pid)?.cpuTicks ?? 0;
  return (ticks * 1e6) / ticksPerSecond();
}

/** Visits each live thread of the given pids; a thread that exits meanwhile is skipped. */
function forEachThread(pids: readonly number[], visit: (pid: number, tid: number, dir: string) => void): void {
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        visit(pid, Number(tid), `/proc/${pid}/task/${tid}`);
      } catch {
        // A thread that just exited: its time went to the process's total, not to a live thread's.
      }
    }
  }
}

const threadTicks = (dir: string): number => parseStat(readFileSync(`${dir}/stat`, 'utf8')).cpuTicks;
const ticksToMicros = (ticks: number): number => (ticks * 1e6) / ticksPerSecond();

/**
 * utime+stime of the given pids' threads other than each process's main thread (V8's GC and compiler
 * helpers in a Node process), in microseconds: work that takes the other core while the main thread
 * serves, where wrk and the mock must also run.
 */
export function helperCpuMicros(pids: readonly number[]): number {
  return helperCpuSplit(pids).helpers;
}

/**
 * In one walk over the threads: the helpers' CPU (as helperCpuMicros) and, of it, the CPU of the
 * threads named `name` (/proc/<pid>/task/<tid>/comm; read only when a name is given), in microseconds.
 */
export function helperCpuSplit(pids: readonly number[], name?: string): { helpers: number; named: number } {
  let helpers = 0;
  let named = 0;
  forEachThread(pids, (pid, tid, dir) => {
    if (tid === pid) return;
    const ticks = threadTicks(dir);
    helpers += ticks;
    if (name !== undefined && readFileSync(`${dir}/comm`, 'utf8').trim() === name) named += ticks;
  });
  return { helpers: ticksToMicros(helpers), named: ticksToMicros(named) };
}

/** VmRSS of the given pids summed, in bytes. */
/** File descriptors the processes hold (entries of /proc/PID/fd). */
export function descriptorCount(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      // A process that just exited holds none.
    }
  }
  return total;
}

export function rssBytes(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match !== null) total += Number(match[1]) * 1024;
    } catch {
      // A process that just exited holds no memory.
    }
  }
  return total;
}
