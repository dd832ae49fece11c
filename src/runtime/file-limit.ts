// The process's file-descriptor limit (RLIMIT_NOFILE), read once at start: every client connection,
// upstream connection, database file and worker pipe takes one descriptor, and running out of them
// (EMFILE) fails whatever needs the next one.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface FileLimit {
  /** The soft limit: what the process may open. */
  soft: number;
  /** The hard limit: how far an operator may raise the soft one without privileges; null when unlimited. */
  hard: number | null;
}

/** The limit as Linux's /proc/self/limits says, else as the shell's `ulimit -n`; null when unlimited or unknown. */
export function readFileLimit(): FileLimit | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    if (line !== undefined) {
      const [soft, hard] = line.slice('Max open files'.length).trim().split(/\s+/);
      return fromText(soft, hard);
    }
  } catch {
    // not Linux: ask a shell once
  }
  try {
    const run = (flag: string): string =>
      execFileSync('/bin/sh', ['-c', `ulimit ${flag}`], { encoding: 'utf8', timeout: 2_000 }).trim();
    return fromText(run('-n'), run('-Hn'));
  } catch {
    return null;
  }
}

function fromText(soft: string | undefined, hard: string | undefined): FileLimit | null {
  const s = Number(soft);
  if (!Number.isInteger(s) || s <= 0) return null;
  const h = Number(hard);
  return { soft: s, hard: Number.isInteger(h) && h > 0 ? h : null };
}
