// Under overload the real gateway refuses a share of new requests at once with 503 `overloaded` and
// `retry-after` in each caller's dialect, serves the ones it admits, never crashes, and writes a usage
// row for every 200. The overload is a blocker inside the gateway process turned on and off by a signal
// (test/helpers/loop-blocker.ts): the event loop is late and busy on cue, however fast the machine is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startFixture, type Fixture } from './fixture.ts';

const BLOCKER = join(import.meta.dirname, '../helpers/loop-blocker.ts');

interface Answer {
  dialect: 'openai' | 'anthropic';
  status: number;
  headers: Headers;
  json: { type?: string; request_id?: string; error: { code?: string; type: string } };
}

function ask(fx: Fixture, dialect: 'openai' | 'anthropic'): Promise<Answer> {
  const openai = dialect === 'openai';
  return fetch(`${fx.gw.url}${openai ? '/v1/chat/completions' : '/v1/messages'}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${fx.key}`,
      'content-type': 'application/json',
      ...(openai ? {} : { 'anthropic-version': '2023-06-01' }),
    },
    body: JSON.stringify({
      model: openai ? 'gpt-up' : 'claude-up',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  }).then(async (res) => ({
    dialect,
    status: res.status,
    headers: res.headers,
    json: (await res.json()) as Answer['json'],
  }));
}

/** The upstream holds every answer until `release()`: admitted requests are then visibly in flight. */
function holdUpstream(fx: Fixture): { release: () => void } {
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  fx.up.setBehaviour(() => ({
    kind: 'custom',
    handle: async ({ res, dialect }) => {
      await gate;
      const body =
        dialect === 'anthropic'
          ? {
              id: 'msg_held',
              type: 'message',
              role: 'assistant',
              model: 'claude-upstream-1',
              content: [{ type: 'text', text: 'held' }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: 3, output_tokens: 1 },
            }
          : {
              id: 'chatcmpl-held',
              object: 'chat.completion',
              created: 1_700_000_000,
              model: 'upstream-gpt',
              choices: [{ index: 0, message: { role: 'assistant', content: 'held' }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
            };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    },
  }));
  return { release };
}

function assertRefusal(a: Answer): void {
  assert.equal(a.status, 503);
  assert.equal(a.headers.get('retry-after'), '1');
  assert.match(a.headers.get('x-request-id') ?? '', /^req_/);
  if (a.dialect === 'openai') {
    assert.equal(a.json.error.code, 'overloaded');
    assert.equal(a.json.error.type, 'server_error');
  } else {
    assert.equal(a.json.type, 'error');
    assert.equal(a.json.error.type, 'overloaded_error');
    assert.equal(a.json.request_id, a.headers.get('x-request-id'));
  }
}

test('an overloaded gateway refuses a share fast in each dialect, serves the rest, and bills every 200', async () => {
  const fx = await startFixture({
    env: { NODE_OPTIONS: `--import=${BLOCKER}`, MODELGATE_OVERLOAD_LOOP_DELAY_MS: '100' },
  });
  const served: string[] = [];
  const refused: string[] = [];
  const record = (a: Answer): Answer => {
    const id = a.headers.get('x-request-id') ?? '';
    if (a.status === 200) served.push(id);
    else if (a.status === 503) refused.push(id);
    return a;
  };
  try {
    // Normal load: everything is served.
    for (const a of await Promise.all([ask(fx, 'openai'), ask(fx, 'anthropic')])) assert.equal(record(a).status, 200);

    fx.gw.signal('SIGUSR2');
    // The shedder looks at the loop every 10 ms; asked until it refuses (each ask waits out the blocker).
    let first: Answer | undefined;
    for (let i = 0; i < 200 && first === undefined; i++) {
      const a = record(await ask(fx, 'openai'));
      if (a.status === 503) first = a;
      else assert.equal(a.status, 200);
    }
    assert.ok(first !== undefined, 'the blocked gateway never refused');
    assertRefusal(first);
    // /metrics, answered while shedding, shows what the shedder acts on.
    const scraped = await (await fetch(`${fx.gw.url}/metrics`)).text();
    const gauge = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(scraped)?.[1]);
    assert.ok(gauge('modelgate_overload_admitted_share') < 1, 'the admitted share is under 1 while shedding');
    assert.ok(gauge('modelgate_event_loop_lateness_seconds') > 0, 'the loop runs late');

    // A burst in both dialects while the upstream holds whatever is admitted: every refusal comes back
    // while the admitted requests are still waiting on the upstream — it waits for no upstream work.
    const upstream = holdUpstream(fx);
    const before = fx.up.requests.length;
    const burst = Array.from({ length: 30 }, (_, i) => ask(fx, i % 2 === 0 ? 'openai' : 'anthropic').then(record));
    // Accounted for: answered (a refusal) or arrived at the upstream (admitted, held there); checked on
    // every answer here and on every upstream event.
    const settled: Answer[] = [];
    const accountedFor = (): boolean => settled.length + (fx.up.requests.length - before) === burst.length;
    let check = (): void => {};
    const answered = new Promise<void>((resolve) => {
      check = () => {
        if (accountedFor()) resolve();
      };
    });
    for (const p of burst)
      void p.then((a) => {
        settled.push(a);
        check();
      });
    const atUpstream = fx.up.waitFor(accountedFor, 'every burst request refused or at the upstream', {
      timeoutMs: 30_000,
    });
    atUpstream.catch(() => {});
    await Promise.race([answered, atUpstream]);
    const admitted = fx.up.requests.length - before;
    assert.ok(settled.length > 0, 'some of the burst was refused');
    for (const a of settled) assertRefusal(a);
    assert.ok(settled.some((a) => a.dialect === 'anthropic') && settled.some((a) => a.dialect === 'openai'));

    fx.gw.signal('SIGUSR2');
    upstream.release();
    const rest = await Promise.all(burst);
    assert.equal(rest.filter((a) => a.status === 200).length, admitted, 'every admitted request is served');
    assert.equal(rest.filter((a) => a.status === 503).length, burst.length - admitted);
    fx.up.setBehaviour(undefined);

    // The loop is idle again: the admitted share grows back until every request is served. The share
    // grows with the loop's samples (every 10 ms), not per request: a fast machine answers a thousand
    // asks one after another in under a second, so the bound leaves room for ten thousand.
    let inARow = 0;
    for (let i = 0; i < 10_000 && inARow < 20; i++)
      inARow = record(await ask(fx, 'openai')).status === 200 ? inARow + 1 : 0;
    assert.equal(inARow, 20, 'the gateway serves everything again once the loop has idle time');

    // No crash: the process ran through all of it and stops cleanly, its last rows flushed.
    assert.equal(fx.gw.pid !== undefined, true);
    await fx.gw.stop();
    assert.doesNotMatch(fx.gw.logs(), /"level":"(error|fatal)"/);
    const db = new DatabaseSync(fx.gw.dbPath, { readOnly: true });
    try {
      const rows = new Map(
        (db.prepare('SELECT request_id, status FROM usage').all() as Array<{ request_id: string; status: number }>).map(
          (r) => [r.request_id, r.status],
        ),
      );
      const missing = served.filter((id) => rows.get(id) !== 200);
      assert.deepEqual(missing, [], `${missing.length} of ${served.length} served requests have no usage row`);
      assert.ok(refused.length > 0);
    } finally {
      db.close();
    }
  } finally {
    await fx.close();
  }
});
