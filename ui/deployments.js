// Deployment health, polled every few seconds while the view is open.
import { api } from './api.js';
import { fillRows, h, localTime, ms } from './dom.js';

const $ = (id) => document.getElementById(id);
const POLL_MS = 3000;
let timer = null;

function row(d) {
  return h(
    'tr',
    { 'data-deployment': d.id },
    h('td', {}, h('strong', {}, d.id), h('div', { class: 'muted' }, `→ ${d.upstream_model}`)),
    h('td', {}, `${d.provider} (${d.provider_kind})`),
    h('td', {}, h('span', { class: `badge ${d.state}` }, d.state)),
    h(
      'td',
      { class: 'num' },
      d.recent_error_rate === null ? 'no failures' : `${Math.round(d.recent_error_rate * 100)}% of ${d.recent_calls}`,
    ),
    h('td', {}, d.last_error === null ? '–' : `${d.last_error.reason}, ${localTime(d.last_error.at)}`),
    h('td', { class: 'num' }, d.cooldown_left_ms > 0 ? ms(d.cooldown_left_ms) : '–'),
    h(
      'td',
      { class: 'mono' },
      d.locked_out_credentials.length === 0 ? '–' : `${d.locked_out_credentials.join(', ')} of ${d.credentials}`,
    ),
    h(
      'td',
      {},
      d.state === 'closed' && d.locked_out_credentials.length === 0
        ? ''
        : h(
            'button',
            {
              type: 'button',
              class: 'small secondary',
              title: 'Close the circuit and try refused keys again',
              onclick: () => reset(d.id),
            },
            'Reset',
          ),
    ),
  );
}

async function reset(id) {
  try {
    await api(`/admin/deployments/${encodeURIComponent(id)}/reset`, { method: 'POST' });
  } catch (err) {
    $('deployments-error').textContent = err.message;
  }
  await loadDeployments();
}

export async function loadDeployments() {
  try {
    const { data } = await api('/admin/deployments');
    fillRows($('deployments-table').tBodies[0], data.map(row), 'No deployments configured.');
    $('deployments-error').textContent = '';
    $('deployments-updated').textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (err) {
    $('deployments-error').textContent = err.message;
  }
}

export function startDeploymentPolling() {
  stopDeploymentPolling();
  loadDeployments();
  timer = setInterval(loadDeployments, POLL_MS);
}

export function stopDeploymentPolling() {
  if (timer !== null) clearInterval(timer);
  timer = null;
}
