// The results header's line on how idle cores wait, from literal sysfs readings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { idleLine } from '../lib/machine.ts';

const sysfs =
  (files: Record<string, string>) =>
  (path: string): string | undefined =>
    files[path];
const DRIVER = '/sys/devices/system/cpu/cpuidle/current_driver';
const POLL = '/sys/module/haltpoll/parameters/guest_halt_poll_ns';

describe('idle line', () => {
  it('says when a guest halts to the host without polling first', () => {
    assert.match(
      idleLine(sysfs({ [DRIVER]: 'haltpoll', [POLL]: '0' })) ?? '',
      /haltpoll, guest halt polling off \(an idle core halts to the hypervisor at once/,
    );
  });

  it('gives the polling time when there is one', () => {
    assert.equal(
      idleLine(sysfs({ [DRIVER]: 'haltpoll', [POLL]: '200000' })),
      'idle cores: cpuidle driver haltpoll, guest halt polling up to 200,000 ns before halting to the hypervisor',
    );
  });

  it('names another driver as it is, and says nothing when the kernel has none', () => {
    assert.equal(idleLine(sysfs({ [DRIVER]: 'intel_idle' })), 'idle cores: cpuidle driver intel_idle');
    assert.equal(idleLine(sysfs({ [DRIVER]: 'none' })), undefined);
    assert.equal(idleLine(sysfs({})), undefined);
  });
});
