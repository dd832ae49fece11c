// Exact routing: the path of every request-target form a client may send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dialectForPath, endpointClass, pathOf } from '../../src/http/routes.ts';
import { findRoute } from '../helpers/routes.ts';

test('pathOf takes the path of origin-form and absolute-form targets and drops the query', () => {
  const cases: Array<[string | undefined, string]> = [
    ['/v1/chat/completions', '/v1/chat/completions'],
    ['/v1/messages?beta=true', '/v1/messages'],
    ['http://127.0.0.1:8080/v1/chat/completions', '/v1/chat/completions'],
    ['HTTPS://gw.example/v1/messages?beta=true', '/v1/messages'],
    ['http://gw.example', '/'],
    ['http://gw.example?x=1', '/'],
    ['*', '*'],
    ['gw.example:443', 'gw.example:443'],
    ['', '/'],
    [undefined, '/'],
  ];
  for (const [url, want] of cases) assert.equal(pathOf(url), want, String(url));
  assert.equal(dialectForPath(pathOf('http://h/v1/messages/nope')), 'anthropic');
});

test('endpointClass puts any path in one of a few fixed classes (metrics labels never hold a raw path)', () => {
  const cases: Array<[string, string]> = [
    ['/v1/messages/batches', 'anthropic'],
    ['/v1/complete', 'anthropic'],
    ['/v1/chat/completion', 'openai'],
    ['/v1/files', 'openai'],
    ['/v1beta/models/x:embedContent', 'gemini'],
    ['/admin', 'admin'],
    ['/admin/keys/x', 'admin'],
    ['/ui/', 'ui'],
    ['/administrator', 'other'],
    ['/', 'other'],
    ['*', 'other'],
    ['/wp-login.php', 'other'],
  ];
  for (const [path, want] of cases) assert.equal(endpointClass(path), want, path);
});

test('/v1/responses, its token count, /v1/responses/{id} for GET and DELETE, and its input items', async () => {
  assert.equal(findRoute('/v1/responses')?.name, 'responses');
  assert.equal(findRoute('/v1/responses/input_tokens')?.name, 'responses_input_tokens');
  const one = findRoute('/v1/responses/resp_abc');
  assert.deepEqual(
    [one?.name, one?.methods, one?.dialect, one?.params],
    ['response', ['GET', 'DELETE'], 'responses', { id: 'resp_abc' }],
  );
  const items = findRoute('/v1/responses/resp_abc/input_items');
  assert.deepEqual([items?.name, items?.methods], ['response_input_items', ['GET']]);
  for (const other of [
    '/v1/responses//input_items',
    '/v1/responses/resp_abc/output_items',
    '/v1/responses/a/b/input_items',
    '/v1/responses/resp_abc/input_items/',
  ])
    assert.equal(findRoute(other), undefined, other);
  assert.equal(findRoute('/v1/responses/resp%5Fx')?.params.id, 'resp_x');
  assert.equal(findRoute('/v1/responses/resp%5Fx/input_items')?.params.id, 'resp_x');
  assert.equal(findRoute('/v1/responses/input_items')?.params.id, 'input_items', 'an id, not the suffix');
  assert.equal(
    findRoute('/v1/responses/%E0%A4%A')?.params.id,
    '%E0%A4%A',
    'a segment that does not decode stays as sent',
  );
});

test('conversation paths: the collection, one conversation, its items, one item; other shapes are no route', () => {
  assert.equal(findRoute('/v1/conversations')?.name, 'conversations');
  assert.deepEqual(
    [findRoute('/v1/conversations/conv_1')?.name, findRoute('/v1/conversations/conv_1')?.methods],
    ['conversation', ['GET', 'POST', 'DELETE']],
  );
  assert.equal(findRoute('/v1/conversations/conv_1/items')?.name, 'conversation_items');
  assert.equal(findRoute('/v1/conversations/conv_1/items/msg_2')?.name, 'conversation_item');
  assert.deepEqual(findRoute('/v1/conversations/conv%201/items/m')?.params, { id: 'conv 1', item_id: 'm' });
  for (const p of ['/v1/conversations/c/other', '/v1/conversations/c/items/', '/v1/conversations/c/items/a/b'])
    assert.equal(findRoute(p), undefined, p);
  assert.equal(findRoute('/v1/responses/compact')?.name, 'responses_compact');
});
