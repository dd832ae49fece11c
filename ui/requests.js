// The request log: newest first, filtered by time, status, endpoint, key, team, model or text, a page at a
// time; a row (or a request id typed in, or #requests/<id>) opens into its detail.
import { api } from './api.js';
import { count, fillRows, h, localTime, ms, usd } from './dom.js';
import { openRequest, setupRequestDetail } from './request-detail.js';

const $ = (id) => document.getElementById(id);
const PAGE = 50;
/** The cursor of the page shown (null: the newest) and of the next, older one. */
let before = null;
let next = null;

const TEXT_FILTERS = ['status', 'endpoint', 'key', 'team', 'model', 'q'];

function query() {
  const form = $('requests-filter').elements;
  const q = new URLSearchParams({ limit: String(PAGE) });
  // The pickers hold local time; the API takes an instant.
  for (const name of ['from', 'to']) if (form[name].value !== '') q.set(name, new Date(form[name].value).toISOString());
  for (const name of TEXT_FILTERS) if (form[name].value.trim()) q.set(name, form[name].value.trim());
  if (form.errors.checked) q.set('errors', 'true');
  if (before !== null) q.set('before', String(before));
  return q;
}

function row(r) {
  return h(
    'tr',
    {
      'data-request-id': r.request_id,
      tabindex: '0',
      title: 'Open this request',
      onclick: () => openRequest(r.request_id),
      onkeydown: (e) => e.key === 'Enter' && openRequest(r.request_id),
    },
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
    h('td', { class: 'mono', title: r.error_message ?? '' }, r.error_code ?? ''),
  );
}

/** The cost explained, one class a line: shown when the pointer rests on the cost. */
function breakdown(lines) {
  if (!Array.isArray(lines) || lines.length === 0) return '';
  return lines.map((l) => `${l.class}: ${l.tokens ?? l.units} × $${l.unit_price_usd} = $${l.cost_usd}`).join('\n');
}

/** `id`: a request to open once the list is in (from #requests/<id>). */
export async function loadRequests(id) {
  $('requests-error').textContent = '';
  if (id) void openRequest(decodeURIComponent(id));
  try {
    const page = await api(`/admin/requests?${query()}`);
    next = page.next_cursor;
    fillRows($('requests-table').tBodies[0], page.data.map(row), 'No request matches.');
    $('requests-older').disabled = next === null;
    $('requests-newest').disabled = before === null;
  } catch (err) {
    $('requests-error').textContent = err.message;
  }
}

export function setupRequests() {
  setupRequestDetail();
  $('requests-filter').addEventListener('submit', (e) => {
    e.preventDefault();
    before = null;
    loadRequests();
  });
  // After the form has cleared its fields.
  $('requests-filter').addEventListener('reset', () =>
    setTimeout(() => {
      before = null;
      loadRequests();
    }),
  );
  $('request-jump').addEventListener('submit', (e) => {
    e.preventDefault();
    const id = e.target.elements.request_id.value.trim();
    if (id) openRequest(id);
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
