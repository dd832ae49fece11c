// The audit trail: every change through the admin API, the CLI or this dashboard, newest first, filtered by
// time, actor, action and target; what changed is shown field by field (the API masks secrets); the same
// listing downloads as CSV.
import { api } from './api.js';
import { downloadCsv, fillRows, h, localTime } from './dom.js';

const $ = (id) => document.getElementById(id);
/** Entries shown at once; the CSV export holds up to the API's own limit. */
const LIMIT = 200;
const CSV_LIMIT = 10_000;

function query(limit) {
  const form = $('audit-filter').elements;
  const q = new URLSearchParams({ limit: String(limit) });
  for (const name of ['from', 'to']) if (form[name].value !== '') q.set(name, new Date(form[name].value).toISOString());
  for (const name of ['actor', 'action', 'target']) if (form[name].value.trim()) q.set(name, form[name].value.trim());
  return q;
}

function shown(v) {
  if (v === null || v === undefined) return '–';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** What an entry changed: the fields that differ between before and after (a create or delete says so). */
function changes(e) {
  if (e.before === null && e.after === null) return '';
  if (e.before === null) return 'created';
  if (e.after === null) return 'deleted';
  const lines = [];
  for (const field of new Set([...Object.keys(e.before), ...Object.keys(e.after)])) {
    const a = shown(e.before[field]);
    const b = shown(e.after[field]);
    if (a !== b) lines.push(h('div', { 'data-field': field }, h('span', { class: 'mono' }, field), `: ${a} → ${b}`));
  }
  return lines.length === 0 ? 'no field changed' : lines;
}

function row(e) {
  return h(
    'tr',
    { 'data-action': e.action, 'data-target': e.target.name ?? e.target.id },
    h('td', { title: e.at }, localTime(e.at)),
    h('td', {}, e.actor.name, ' ', h('span', { class: 'muted' }, `(${e.actor.kind})`)),
    h('td', { class: 'mono' }, e.source ?? 'CLI'),
    h('td', { class: 'mono' }, e.action),
    h('td', {}, e.target.name ?? e.target.id, ' ', h('span', { class: 'muted' }, e.target.kind)),
    h('td', { class: 'changes' }, changes(e)),
  );
}

export async function loadAudit() {
  $('audit-error').textContent = '';
  try {
    const { data } = await api(`/admin/audit?${query(LIMIT)}`);
    fillRows($('audit-table').tBodies[0], data.map(row), 'No change matches.');
    $('audit-count').textContent =
      data.length === LIMIT ? `The newest ${LIMIT} entries; narrow the filters or download the CSV for more.` : '';
  } catch (err) {
    $('audit-error').textContent = err.status === 403 ? 'The audit trail is for administrators.' : err.message;
    fillRows($('audit-table').tBodies[0], [], '–');
  }
}

export function setupAudit() {
  $('audit-filter').addEventListener('submit', (e) => {
    e.preventDefault();
    loadAudit();
  });
  $('audit-filter').addEventListener('reset', () => setTimeout(loadAudit));
  $('audit-csv').addEventListener('click', () =>
    downloadCsv(`/admin/audit?${query(CSV_LIMIT)}&format=csv`, 'modelgate-audit.csv').catch((err) => {
      $('audit-error').textContent = err.message;
    }),
  );
}
