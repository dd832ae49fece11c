// Golden-file helpers for the translator tests: read fixtures, compare output with a stored expectation.
// Regenerate expectations with UPDATE_GOLDEN=1 and review the diff before committing.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const GOLDEN_DIR = new URL('../golden/translate/', import.meta.url).pathname;

export function readFixture(name: string): string {
  return readFileSync(join(GOLDEN_DIR, name), 'utf8');
}

/** Fresh random ids would make every run differ; they are replaced by stable placeholders. */
export function normaliseIds(text: string): string {
  return text
    .replace(/chatcmpl-[A-Za-z0-9]{29}/g, 'chatcmpl-ID')
    .replace(/msg_[A-Za-z0-9]{24}/g, 'msg_ID')
    .replace(/toolu_[A-Za-z0-9]{24}/g, 'toolu_GENERATED');
}

export function assertGolden(name: string, actual: string): void {
  const file = join(GOLDEN_DIR, name);
  const text = normaliseIds(actual);
  if (process.env.UPDATE_GOLDEN === '1') {
    writeFileSync(file, text);
    return;
  }
  assert.ok(existsSync(file), `golden file ${name} is missing; run with UPDATE_GOLDEN=1 and review it`);
  assert.equal(text, readFileSync(file, 'utf8'), `output differs from golden file ${name}`);
}
