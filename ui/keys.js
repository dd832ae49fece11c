// The keys view: list with spend and last use (searched, sorted and paged in the page), create (the key shown
// once, with a copy button), edit limits and models (picked from the catalog), disable, delete.
import { api } from './api.js';
import { ago, count, fillRows, h, usd } from './dom.js';

const $ = (id) => document.getElementById(id);
/** The id of the key the dialog edits; null while it creates one. */
let editing = null;
/** Every key as last listed; the search, sort and page pick what is shown. */
let all = [];
let page = 0;
const PAGE_SIZE = 25;

const SORTS = {
  name: (a, b) => a.name.localeCompare(b.name),
  spent: (a, b) => b.spent_usd - a.spent_usd || a.name.localeCompare(b.name),
  created: (a, b) =>
    String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')) || a.name.localeCompare(b.name),
  status: (a, b) => a.status.localeCompare(b.status) || a.name.localeCompare(b.name),
  // Never used last; ISO times compare as text.
  used: (a, b) =>
    String(b.last_used_at ?? '').localeCompare(String(a.last_used_at ?? '')) || a.name.localeCompare(b.name),
};

function render() {
  const q = $('keys-search').value.trim().toLowerCase();
  const shown = all
    .filter(
      (k) =>
        q === '' ||
        k.name.toLowerCase().includes(q) ||
        k.masked.toLowerCase().includes(q) ||
        (k.team ?? '').toLowerCase().includes(q) ||
        (k.models ?? ['all']).some((m) => m.toLowerCase().includes(q)),
    )
    .sort(SORTS[$('keys-sort').value] ?? SORTS.name);
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  page = Math.min(page, pages - 1);
  fillRows(
    $('keys-table').tBodies[0],
    shown.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).map(row),
    all.length === 0 ? 'No keys yet. Create one with “New key”.' : 'No key matches.',
  );
  $('keys-page').textContent = `${shown.length} key${shown.length === 1 ? '' : 's'} · page ${page + 1} of ${pages}`;
  $('keys-prev').disabled = page === 0;
  $('keys-next').disabled = page >= pages - 1;
}

function limitsText(k) {
  const parts = [];
  if (k.budget_usd !== null) parts.push(`${usd(k.budget_usd)}${k.budget_period ? ` / ${k.budget_period}` : ''}`);
  if (k.token_budget !== null)
    parts.push(`${count(k.token_budget)} tokens${k.budget_period ? ` / ${k.budget_period}` : ''}`);
  if (k.rpm !== null) parts.push(`${k.rpm} rpm`);
  if (k.tpm !== null) parts.push(`${count(k.tpm)} tpm`);
  if (k.concurrency !== null) parts.push(`${k.concurrency} at once`);
  if (k.expires_at !== null) parts.push(`expires ${k.expires_at.slice(0, 10)}`);
  return parts.length > 0 ? parts.join(' · ') : 'none';
}

function spentText(k) {
  const money = k.budget_usd === null ? usd(k.spent_usd) : `${usd(k.spent_usd)} of ${usd(k.budget_usd)}`;
  return k.tokens_used > 0 ? `${money} · ${count(k.tokens_used)} tokens` : money;
}

function row(k) {
  const toggle = k.status === 'disabled' ? 'enable' : 'disable';
  return h(
    'tr',
    { 'data-key-id': k.id },
    h('td', {}, h('strong', {}, k.name)),
    h('td', { class: 'mono' }, k.masked),
    h('td', {}, h('span', { class: `badge ${k.status}` }, k.status)),
    h('td', {}, k.models === null ? 'all' : k.models.join(', ')),
    h('td', {}, limitsText(k)),
    h('td', { class: 'spent' }, spentText(k)),
    h('td', { class: 'last-used', title: k.last_used_at ?? 'never used' }, ago(k.last_used_at)),
    h(
      'td',
      {},
      h(
        'div',
        { class: 'actions-cell' },
        h('button', { type: 'button', class: 'small secondary', onclick: () => openDialog(k) }, 'Edit'),
        h(
          'button',
          {
            type: 'button',
            class: 'small secondary',
            onclick: () => act(() => api(`/admin/keys/${encodeURIComponent(k.id)}/${toggle}`, { method: 'POST' })),
          },
          toggle === 'enable' ? 'Enable' : 'Disable',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'small danger',
            onclick: () =>
              confirm(`Delete the key "${k.name}"? Requests with it stop at once.`) &&
              act(() => api(`/admin/keys/${encodeURIComponent(k.id)}`, { method: 'DELETE' })),
          },
          'Delete',
        ),
      ),
    ),
  );
}

async function act(run) {
  $('keys-error').textContent = '';
  try {
    await run();
  } catch (err) {
    $('keys-error').textContent = err.message;
  }
  await loadKeys();
}

export async function loadKeys() {
  try {
    const { data } = await api('/admin/keys');
    all = data;
    render();
  } catch (err) {
    $('keys-error').textContent = err.message;
  }
}

const NUMBER_FIELDS = ['budget_usd', 'token_budget', 'rpm', 'tpm', 'concurrency'];

/** The catalog's model names (GET /admin/models), or null where the API has no such route. */
async function catalog() {
  try {
    const { data } = await api('/admin/models');
    return data.map((m) => m.name).sort();
  } catch {
    return null;
  }
}

/** A checkbox per catalog model, those of `models` ticked; the rest of `models` (patterns) go in the text field. */
function fillModelPicker(names, models) {
  const form = $('key-form');
  const picked = new Set(models ?? []);
  const known = new Set(names ?? []);
  $('key-model-options').replaceChildren(
    ...(names ?? []).map((name) =>
      h(
        'label',
        { class: 'inline check' },
        h('input', { type: 'checkbox', name: 'model-pick', value: name, checked: picked.has(name) }),
        name,
      ),
    ),
  );
  form.elements.models.value = (models ?? []).filter((m) => !known.has(m)).join(', ');
}

async function openDialog(k) {
  editing = k === null ? null : k.id;
  const form = $('key-form');
  form.reset();
  fillModelPicker(await catalog(), k === null ? null : k.models);
  $('key-form-error').textContent = '';
  $('key-form-title').textContent = k === null ? 'New key' : `Edit ${k.name}`;
  $('key-save').textContent = k === null ? 'Create' : 'Save';
  if (k !== null) {
    form.elements.name.value = k.name;
    form.elements.expires_at.value = k.expires_at === null ? '' : k.expires_at.slice(0, 10);
    form.elements.budget_period.value = k.budget_period ?? '';
    for (const f of NUMBER_FIELDS) form.elements[f].value = k[f] === null ? '' : String(k[f]);
  }
  $('key-dialog').showModal();
}

function bodyFromForm(form) {
  const el = form.elements;
  const picked = [...form.querySelectorAll('input[name="model-pick"]:checked')].map((c) => c.value);
  const typed = el.models.value
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const models = [...new Set([...picked, ...typed])];
  const body = {
    name: el.name.value.trim(),
    models: models.length === 0 ? null : models,
    expires_at: el.expires_at.value === '' ? null : el.expires_at.value,
    budget_period: el.budget_period.value === '' ? null : el.budget_period.value,
  };
  for (const f of NUMBER_FIELDS) body[f] = el[f].value === '' ? null : Number(el[f].value);
  return body;
}

async function save(event) {
  event.preventDefault();
  const body = bodyFromForm($('key-form'));
  try {
    if (editing === null) {
      const created = await api('/admin/keys', { method: 'POST', body });
      $('new-key-value').value = created.key;
      $('new-key-shown').hidden = false;
      $('copy-key').textContent = 'Copy';
    } else {
      await api(`/admin/keys/${encodeURIComponent(editing)}`, { method: 'PATCH', body });
    }
    $('key-dialog').close();
    await loadKeys();
  } catch (err) {
    $('key-form-error').textContent = err.message;
  }
}

async function copyKey() {
  const input = $('new-key-value');
  try {
    await navigator.clipboard.writeText(input.value);
    $('copy-key').textContent = 'Copied';
  } catch {
    // No clipboard permission (plain http on another host): leave it selected for Ctrl+C.
    input.select();
    $('copy-key').textContent = 'Press Ctrl+C';
  }
}

export function setupKeys() {
  $('new-key').addEventListener('click', () => openDialog(null));
  $('keys-search').addEventListener('input', () => {
    page = 0;
    render();
  });
  $('keys-sort').addEventListener('change', render);
  $('keys-prev').addEventListener('click', () => {
    page = Math.max(0, page - 1);
    render();
  });
  $('keys-next').addEventListener('click', () => {
    page += 1;
    render();
  });
  $('key-cancel').addEventListener('click', () => $('key-dialog').close());
  $('key-form').addEventListener('submit', save);
  $('copy-key').addEventListener('click', copyKey);
  $('dismiss-key').addEventListener('click', () => {
    $('new-key-value').value = '';
    $('new-key-shown').hidden = true;
  });
}
