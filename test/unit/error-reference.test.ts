// docs/errors.md stays true to the error catalogue (Fastify's rule: every code documented): each code
// once, with its status and the type each dialect's body carries, a meaning and what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ERROR_CODES, type ErrorCode } from '../../src/core/errors.ts';
import { anthropicErrorType } from '../../src/dialects/anthropic-messages/errors.ts';
import { openaiErrorType } from '../../src/dialects/openai-chat/errors.ts';
import { tableRows } from '../helpers/markdown-table.ts';

const rows = tableRows(join(import.meta.dirname, '../../docs/errors.md'));

test('docs/errors.md documents every code of the catalogue, and no other', () => {
  const documented = rows.map((r) => r[0]);
  assert.equal(new Set(documented).size, documented.length, 'each code once');
  assert.deepEqual([...documented].sort(), Object.keys(ERROR_CODES).sort());
});

test('each row has the status and the dialect types the gateway writes, a meaning and what to do', () => {
  for (const [code, status, openaiType, anthropicType, meaning, todo] of rows) {
    const entry = ERROR_CODES[code as ErrorCode];
    assert.equal(Number(status), entry.status, `${code}: status`);
    assert.equal(openaiType, openaiErrorType(entry.status), `${code}: OpenAI type`);
    assert.equal(anthropicType, anthropicErrorType(entry.status), `${code}: Anthropic type`);
    assert.ok(meaning.length > 10 && todo.length > 3, `${code}: meaning and what to do`);
  }
});
