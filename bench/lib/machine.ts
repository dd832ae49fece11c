// Facts about the machine that change what a wake-up costs, for the results header. Two machines of the
// same kind have differed more than ten-fold in a 1-connection round trip to the mock (p50 10 µs and
// 180 µs); on the slower, a guest whose idle cores halted to the hypervisor with no polling first,
// letting them poll 200 µs cut it to 70 µs. Every hand-off between processes is such a wake-up, so this
// moves 1-connection latency and CPU per event; the header says which kind of machine a run came from.
import { readFileSync } from 'node:fs';

const CPUIDLE = '/sys/devices/system/cpu/cpuidle/current_driver';
const HALT_POLL = '/sys/module/haltpoll/parameters/guest_halt_poll_ns';

export type ReadText = (path: string) => string | undefined;

const readText: ReadText = (path) => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

/** How idle cores wait, as one clause, or undefined when the kernel does not say. */
export function idleLine(read: ReadText = readText): string | undefined {
  const driver = read(CPUIDLE);
  if (driver === undefined || driver === '' || driver === 'none') return undefined;
  const pollNs = read(HALT_POLL);
  if (driver !== 'haltpoll' || pollNs === undefined) return `idle cores: cpuidle driver ${driver}`;
  const polling =
    Number(pollNs) === 0
      ? 'guest halt polling off (an idle core halts to the hypervisor at once, and waking it waits on the hypervisor)'
      : `guest halt polling up to ${Number(pollNs).toLocaleString('en-US')} ns before halting to the hypervisor`;
  return `idle cores: cpuidle driver haltpoll, ${polling}`;
}
