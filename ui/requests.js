// The latest requests, newest first, filtered by key, model or errors, a page at a time.
import { api } from './api.js';
import { count, fillRows, h, localTime, ms, usd } from './dom.js';

const $ = (id) => document.getElementById(id);
const PAGE = 50;
/** The cursor of the page shown (null: the newest) and of the next, older one. */
let before = null;
let next = null;

function query() {
  const form = $('requests-filter').elements;
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (form.key.value.trim()) q.set('key', form.key.value.trim());
  if (form.model.value.trim()) q.set('model', form.model.value.trim());
  if (form.errors.checked) q.set('errors', 'true');
  if (before !== null) q.set('before', String(before));
  return q;
}

function row(r) {
  return h(
    'tr',
    { 'data-request-id': r.request_id },
    h('td', { title: r.time }, localTime(r.time)),
    h('td', {}, r.key_name ?? '(deleted)', ' ', h('span', { class: 'mono muted' }, r.key_masked ?? '')),
    h('td', {}, r.model),
    h('td', { class: 'mono' }, r.deployment ?? '–'),
    h('td', { class: r.status >= 400 ? 'num status-error' : 'num' }, String(r.status)),
    h(
      'td',
      { class: 'num' },
      `${count(r.input_tokens + r.cache_read_tokens + r.cache_write_tokens)} / ${count(r.output_tokens)}`,
    ),
    h('td', { class: 'num cost', title: breakdown(r.cost_breakdown) }, usd(r.cost_usd)),
    h('td', { class: 'num' }, ms(r.latency_ms)),
    h('td', { class: 'num' }, ms(r.ttfb_ms)),
    h('td', { class: 'mono' }, r.error_code ?? ''),
  );
}

/** The cost explained, one class a line: shown when the pointer rests on the cost. */
function breakdown(lines) {
  if (!Array.isArray(lines) || lines.length === 0) return '';
  return lines.map((l) => `${l.class}: ${l.tokens ?? l.units} × $${l.unit_price_usd} = $${l.cost_usd}`).join('\n');
}

export async function loadRequests() {
  $('requests-error').textContent = '';
  try {
    const page = await api(`/admin/requests?${query()}`);
    next = page.next_cursor;
    fillRows($('requests-table').tBodies[0], page.data.map(row), 'No requests yet.');
    $('requests-older').disabled = next === null;
    $('requests-newest').disabled = before === null;
  } catch (err) {
    $('requests-error').textContent = err.message;
  }
}

export function setupRequests() {
  $('requests-filter').addEventListener('submit', (e) => {
    e.preventDefault();
    before = null;
    loadRequests();
  });
  $('requests-older').addEventListener('click', () => {
    before = next;
    loadRequests();
  });
  $('requests-newest').addEventListener('click', () => {
    before = null;
    loadRequests();
  });
}
