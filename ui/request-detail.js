// One request of the log in a dialog (GET /admin/requests/{id}): who sent it, where it went, the error its
// caller saw (masked by the gateway before it was stored), each upstream attempt, and its tokens and cost.
// While it is open the address is #requests/<id>, so it can be shared with whoever looks next.
import { api } from './api.js';
import { count, fillRows, h, localTime, ms, usd } from './dom.js';

const $ = (id) => document.getElementById(id);

function fact(label, ...value) {
  return [h('dt', {}, label), h('dd', {}, ...value)];
}

function facts(d) {
  return [
    fact('Request id', h('span', { class: 'mono' }, d.request_id)),
    fact('Time', h('span', { title: d.time }, localTime(d.time))),
    fact('Key', d.key_name ?? '(deleted)', ' ', h('span', { class: 'mono muted' }, d.key_masked ?? '')),
    fact('Team', d.team ?? '–'),
    fact('Endpoint', h('span', { class: 'mono' }, d.endpoint)),
    fact('Model', d.model),
    fact('Answered by', h('span', { class: 'mono' }, d.deployment ?? '–')),
    fact(
      'Status',
      h('span', { class: d.status >= 400 ? 'status-error' : '' }, String(d.status)),
      d.error_code ? h('span', { class: 'mono muted' }, ` ${d.error_code}`) : '',
    ),
    fact('Latency', `${ms(d.latency_ms)} (first byte ${ms(d.ttfb_ms)})`),
    fact('Streamed', d.streamed ? 'yes' : 'no'),
    ...(d.routing ? [fact('Routing', d.routing)] : []),
    ...(d.session_id ? [fact('Session', h('span', { class: 'mono' }, d.session_id))] : []),
    ...(d.redactions > 0 ? [fact('Redactions', String(d.redactions))] : []),
  ].flat();
}

function attemptRow(a, i) {
  return h(
    'tr',
    { 'data-deployment': a.deployment },
    h('td', {}, String(i + 1)),
    h('td', { class: 'mono' }, a.deployment),
    h('td', { class: a.status !== null && a.status >= 400 ? 'num status-error' : 'num' }, a.status ?? '–'),
    h('td', { class: 'mono' }, a.outcome),
    h('td', { class: 'num' }, ms(a.duration_ms)),
  );
}

/** The token classes and their cost: the breakdown's lines, or the plain counts when nothing was charged. */
function costRows(d) {
  if (Array.isArray(d.cost_breakdown) && d.cost_breakdown.length > 0)
    return [
      ...d.cost_breakdown.map((l) =>
        h(
          'tr',
          { 'data-class': l.class },
          h('td', {}, l.class),
          h('td', { class: 'num' }, count(l.tokens ?? l.units)),
          h('td', { class: 'num' }, `$${l.unit_price_usd}`),
          h('td', { class: 'num' }, usd(l.cost_usd)),
        ),
      ),
      h('tr', { class: 'total' }, h('td', {}, 'total'), h('td'), h('td'), h('td', { class: 'num' }, usd(d.cost_usd))),
    ];
  return [
    ['input', d.input_tokens],
    ['cache_read', d.cache_read_tokens],
    ['cache_write', d.cache_write_tokens],
    ['output', d.output_tokens],
  ]
    .filter(([, n]) => n > 0)
    .map(([name, n]) =>
      h('tr', { 'data-class': name }, h('td', {}, name), h('td', { class: 'num' }, count(n)), h('td'), h('td')),
    );
}

export async function openRequest(id) {
  const dialog = $('request-dialog');
  $('request-title').textContent = `Request ${id}`;
  $('request-error').textContent = '';
  $('request-facts').replaceChildren();
  $('request-message-box').hidden = true;
  fillRows($('request-attempts').tBodies[0], [], 'Loading…');
  fillRows($('request-cost').tBodies[0], [], '');
  if (!dialog.open) dialog.showModal();
  history.replaceState(null, '', `#requests/${encodeURIComponent(id)}`);
  try {
    const d = await api(`/admin/requests/${encodeURIComponent(id)}`);
    $('request-facts').replaceChildren(...facts(d));
    $('request-message-box').hidden = d.error_message === null;
    $('request-message').textContent = d.error_message ?? '';
    fillRows(
      $('request-attempts').tBodies[0],
      d.attempt_log.map(attemptRow),
      'No upstream attempt: the gateway answered it itself.',
    );
    fillRows($('request-cost').tBodies[0], costRows(d), 'No tokens and nothing charged.');
  } catch (err) {
    $('request-error').textContent = err.message;
    fillRows($('request-attempts').tBodies[0], [], '–');
  }
}

/** The address back to the list once the dialog closes (its button, or Escape). */
function forget() {
  if (location.hash.startsWith('#requests/')) history.replaceState(null, '', '#requests');
}

export function setupRequestDetail() {
  const dialog = $('request-dialog');
  $('request-close').addEventListener('click', () => {
    forget();
    dialog.close();
  });
  dialog.addEventListener('close', forget);
}
