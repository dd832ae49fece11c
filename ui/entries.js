// Providers and models: the file's and the database's, credentials masked; add one (an entry as in the YAML
// file, written as JSON) or delete one the API added. The gateway validates each change as a start would.
import { api } from './api.js';
import { fillRows, h } from './dom.js';

const $ = (id) => document.getElementById(id);

const EXAMPLES = {
  providers: { name: 'openai-b', kind: 'openai', base_url: 'https://api.openai.com/v1', api_key: 'sk-…' },
  models: {
    name: 'gpt-4.1',
    price: { input: 2, output: 8 },
    deployments: [{ provider: 'openai-b', model: 'gpt-4.1' }],
  },
};

function deleteButton(what, name) {
  return h('button', { type: 'button', class: 'small secondary', onclick: () => remove(what, name) }, 'Delete');
}

function sourceBadge(source) {
  return h('span', { class: `badge ${source === 'file' ? 'file' : 'database'}` }, source);
}

function providerRow(p) {
  const credentials = [p.api_key, ...(p.api_keys ?? [])].filter((k) => typeof k === 'string');
  return h(
    'tr',
    { 'data-provider': p.name },
    h('td', {}, h('strong', {}, p.name)),
    h('td', {}, p.kind),
    h('td', { class: 'mono' }, p.base_url ?? '–'),
    h('td', { class: 'mono' }, credentials.length === 0 ? '–' : credentials.join(', ')),
    h('td', {}, sourceBadge(p.source)),
    h('td', {}, p.source === 'database' ? deleteButton('providers', p.name) : ''),
  );
}

function modelRow(m) {
  return h(
    'tr',
    { 'data-model': m.name },
    h(
      'td',
      {},
      h('strong', {}, m.name),
      (m.aliases ?? []).length > 0 ? h('div', { class: 'muted' }, m.aliases.join(', ')) : '',
    ),
    h('td', {}, (m.deployments ?? []).map((d) => `${d.provider} → ${d.model}`).join(', ')),
    h('td', {}, m.price === undefined ? 'catalogue or $0' : `$${m.price.input} / $${m.price.output} per M`),
    h('td', {}, sourceBadge(m.source)),
    h('td', {}, m.source === 'database' ? deleteButton('models', m.name) : ''),
  );
}

async function remove(what, name) {
  if (!confirm(`Delete ${what === 'providers' ? 'provider' : 'model'} ${name}? Every replica stops serving it.`))
    return;
  try {
    await api(`/admin/${what}/${encodeURIComponent(name)}`, { method: 'DELETE' });
    $('entries-error').textContent = '';
  } catch (err) {
    $('entries-error').textContent = err.message;
  }
  await loadEntries();
}

export async function loadEntries() {
  try {
    const [providers, models] = await Promise.all([api('/admin/providers'), api('/admin/models')]);
    fillRows($('providers-table').tBodies[0], providers.data.map(providerRow), 'No providers.');
    fillRows($('models-table').tBodies[0], models.data.map(modelRow), 'No models.');
  } catch (err) {
    $('entries-error').textContent = err.message;
  }
}

function openDialog(what) {
  const form = $('entry-form');
  form.reset();
  form.elements.what.value = what;
  form.elements.entry.value = JSON.stringify(EXAMPLES[what], null, 2);
  $('entry-form-error').textContent = '';
  $('entry-dialog').showModal();
}

async function save(event) {
  event.preventDefault();
  const form = $('entry-form');
  let body;
  try {
    body = JSON.parse(form.elements.entry.value);
  } catch (err) {
    $('entry-form-error').textContent = `Not valid JSON: ${err.message}`;
    return;
  }
  try {
    await api(`/admin/${form.elements.what.value}`, { method: 'POST', body });
    $('entry-dialog').close();
    await loadEntries();
  } catch (err) {
    $('entry-form-error').textContent = err.message;
  }
}

export function setupEntries() {
  $('new-provider').addEventListener('click', () => openDialog('providers'));
  $('new-model').addEventListener('click', () => openDialog('models'));
  $('entry-cancel').addEventListener('click', () => $('entry-dialog').close());
  $('entry-form').addEventListener('submit', save);
}
