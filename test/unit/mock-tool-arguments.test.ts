// The mock's tool calls carry arguments valid against the tool's JSON schema, whichever dialect offered it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { schemaInstance } from '../../src/providers/mock/schema-instance.ts';
import { planMockReply } from '../../src/providers/mock/mock-reply.ts';
import { responsesPlanView } from '../../src/providers/mock/mock-responses.ts';
import { plannerBodyOfGemini } from '../../src/providers/mock/mock-gemini.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
ajv.addFormat('uri', /^https?:\/\//);
ajv.addFormat('email', /@/);

/** Claude Code's Bash tool, Codex's shell tool, and schemas that use every keyword the generator reads. */
const SCHEMAS: Record<string, object> = {
  bash: {
    type: 'object',
    properties: {
      command: { type: 'string', description: 'The command to execute' },
      timeout: { type: 'number', description: 'Optional timeout in milliseconds (max 600000)' },
      description: { type: 'string' },
      run_in_background: { type: 'boolean' },
    },
    required: ['command'],
    additionalProperties: false,
  },
  codexShell: {
    type: 'object',
    properties: {
      command: { type: 'array', items: { type: 'string' } },
      workdir: { type: 'string' },
      timeout_ms: { type: 'number' },
    },
    required: ['command'],
    additionalProperties: false,
  },
  nested: {
    type: 'object',
    required: ['todos', 'mode', 'count', 'when', 'site', 'tag'],
    properties: {
      todos: {
        type: 'array',
        minItems: 2,
        items: {
          type: 'object',
          required: ['content', 'status', 'priority'],
          properties: {
            content: { type: 'string', minLength: 8 },
            status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
            priority: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 1, maximum: 5 }] },
          },
          additionalProperties: false,
        },
      },
      mode: { const: 'strict' },
      count: { type: 'integer', exclusiveMinimum: 3, multipleOf: 2 },
      when: { type: 'string', format: 'date-time' },
      site: { type: ['string', 'null'], format: 'uri' },
      tag: { type: 'string', maxLength: 2 },
    },
    additionalProperties: false,
  },
  refs: {
    type: 'object',
    $defs: {
      point: { type: 'object', required: ['x', 'y'], properties: { x: { type: 'number' }, y: { type: 'number' } } },
    },
    required: ['from', 'to', 'ids'],
    properties: {
      from: { $ref: '#/$defs/point' },
      to: {
        allOf: [
          { $ref: '#/$defs/point' },
          { type: 'object', required: ['label'], properties: { label: { type: 'string' } } },
        ],
      },
      ids: { type: 'array', items: { type: 'integer' }, minItems: 3, uniqueItems: true },
    },
  },
  empty: { type: 'object', properties: {} },
};

for (const [name, schema] of Object.entries(SCHEMAS)) {
  test(`a minimal instance of the ${name} schema is valid against it`, () => {
    const value = schemaInstance(schema);
    const validate = ajv.compile(schema);
    assert.ok(validate(value), `${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`);
  });
}

test('a command reads as a harmless shell command', () => {
  assert.deepEqual(schemaInstance(SCHEMAS.bash), { command: 'echo mock' });
  assert.deepEqual(schemaInstance(SCHEMAS.codexShell), { command: ['echo', 'mock'] });
});

test("every dialect's tool list gives the mock arguments valid against the offered schema", () => {
  const schema = SCHEMAS.nested;
  const validate = ajv.compile(schema);
  const user = { role: 'user', content: 'go' };
  const bodies = {
    chat: { messages: [user], tools: [{ type: 'function', function: { name: 'plan', parameters: schema } }] },
    anthropic: {
      messages: [user],
      tools: [
        { type: 'web_search_20250305', name: 'web_search' },
        { name: 'plan', input_schema: schema },
      ],
    },
    responses: responsesPlanView({
      input: 'go',
      tools: [
        { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } },
        { type: 'function', name: 'plan', parameters: schema },
      ],
    }),
    gemini: plannerBodyOfGemini({
      contents: [{ role: 'user', parts: [{ text: 'go' }] }],
      tools: [{ functionDeclarations: [{ name: 'plan', parametersJsonSchema: schema }] }],
    }),
  };
  for (const [dialect, body] of Object.entries(bodies)) {
    const plan = planMockReply(body, 12, 'call_1');
    assert.equal(plan.tool?.name, 'plan', dialect);
    const args: unknown = JSON.parse(plan.tool!.arguments);
    assert.ok(validate(args), `${dialect}: ${ajv.errorsText(validate.errors)}`);
  }
});

test("Gemini's OpenAPI-style upper-case types", () => {
  const body = plannerBodyOfGemini({
    contents: [{ role: 'user', parts: [{ text: 'go' }] }],
    tools: [
      {
        functionDeclarations: [
          {
            name: 'run_shell_command',
            parameters: {
              type: 'OBJECT',
              required: ['command', 'lines'],
              properties: { command: { type: 'STRING' }, lines: { type: 'INTEGER', minimum: 1 } },
            },
          },
        ],
      },
    ],
  });
  assert.deepEqual(JSON.parse(planMockReply(body, 12, 'c').tool!.arguments), { command: 'echo mock', lines: 1 });
});
