// The teams view: each team with its keys, what they spent together this period and its limits; an
// administrator creates a team, changes its budget, limits and models, and deletes an empty one.
import { api } from './api.js';
import { count, fillRows, h, usd } from './dom.js';

const $ = (id) => document.getElementById(id);
/** The id of the team the form edits; null while it creates one. */
let editing = null;

function limitsText(t) {
  const parts = [];
  if (t.rpm !== null) parts.push(`${t.rpm} rpm`);
  if (t.tpm !== null) parts.push(`${count(t.tpm)} tpm`);
  if (t.concurrency !== null) parts.push(`${t.concurrency} at once`);
  return parts.length === 0 ? '–' : parts.join(' · ');
}

function budgetText(t) {
  if (t.budget_usd === null) return t.token_budget === null ? 'unlimited' : `${count(t.token_budget)} tokens`;
  return `${usd(t.budget_usd)}${t.budget_period === null ? '' : ` / ${t.budget_period}`}`;
}

function row(t) {
  return h(
    'tr',
    { 'data-team': t.name },
    h('td', {}, t.name),
    h('td', { class: 'num' }, String(t.keys)),
    h('td', {}, budgetText(t)),
    h('td', { class: 'num' }, usd(t.spent_usd)),
    h('td', { class: 'num' }, t.budget_left_usd === null ? '–' : usd(t.budget_left_usd)),
    h('td', {}, limitsText(t)),
    h('td', {}, t.models === null ? 'all' : t.models.join(', ')),
    h(
      'td',
      { class: 'actions' },
      h('button', { type: 'button', class: 'secondary small', onclick: () => edit(t) }, 'Edit'),
      h('button', { type: 'button', class: 'secondary small danger', onclick: () => remove(t) }, 'Delete'),
    ),
  );
}

export async function loadTeams() {
  $('teams-error').textContent = '';
  try {
    const { data } = await api('/admin/teams');
    fillRows(
      $('teams-table').tBodies[0],
      data.map(row),
      'No teams yet. A team holds a budget and limits above its keys.',
    );
  } catch (err) {
    $('teams-error').textContent = err.message;
    fillRows($('teams-table').tBodies[0], [], '–');
  }
}

/** A number field: empty clears the limit (null). */
function numberOf(value) {
  return value.trim() === '' ? null : Number(value);
}

function edit(t) {
  editing = t.id;
  const f = $('team-form').elements;
  f.name.value = t.name;
  f.budget_usd.value = t.budget_usd ?? '';
  f.budget_period.value = t.budget_period ?? '';
  f.rpm.value = t.rpm ?? '';
  f.tpm.value = t.tpm ?? '';
  f.concurrency.value = t.concurrency ?? '';
  f.models.value = t.models === null ? '' : t.models.join(', ');
  $('team-form-title').textContent = `Edit team ${t.name}`;
  $('team-form').hidden = false;
}

async function remove(t) {
  if (!confirm(`Delete team ${t.name}?`)) return;
  try {
    await api(`/admin/teams/${encodeURIComponent(t.id)}`, { method: 'DELETE' });
    await loadTeams();
  } catch (err) {
    $('teams-error').textContent = err.message;
  }
}

async function save(event) {
  event.preventDefault();
  const f = $('team-form').elements;
  const models = f.models.value
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const body = {
    name: f.name.value.trim(),
    budget_usd: numberOf(f.budget_usd.value),
    budget_period: f.budget_period.value === '' ? null : f.budget_period.value,
    rpm: numberOf(f.rpm.value),
    tpm: numberOf(f.tpm.value),
    concurrency: numberOf(f.concurrency.value),
    models: models.length === 0 ? null : models,
  };
  $('team-form-error').textContent = '';
  try {
    if (editing === null) await api('/admin/teams', { method: 'POST', body });
    else await api(`/admin/teams/${encodeURIComponent(editing)}`, { method: 'PATCH', body });
    $('team-form').hidden = true;
    $('team-form').reset();
    editing = null;
    await loadTeams();
  } catch (err) {
    $('team-form-error').textContent = err.message;
  }
}

export function setupTeams() {
  $('new-team').addEventListener('click', () => {
    editing = null;
    $('team-form').reset();
    $('team-form-title').textContent = 'New team';
    $('team-form').hidden = false;
    $('team-form').elements.name.focus();
  });
  $('team-cancel').addEventListener('click', () => {
    $('team-form').hidden = true;
    editing = null;
  });
  $('team-form').addEventListener('submit', save);
}
