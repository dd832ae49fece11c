// The dashboard's shell: sign-in with the admin token (kept in sessionStorage, this tab only) and the views.
import { api, token, whenUnauthorized } from './api.js';
import { loadKeys, setupKeys } from './keys.js';
import { loadUsage, setupUsage } from './usage.js';
import { loadRequests, setupRequests } from './requests.js';
import { startDeploymentPolling, stopDeploymentPolling } from './deployments.js';
import { loadEntries, setupEntries } from './entries.js';

const $ = (id) => document.getElementById(id);
const VIEWS = {
  keys: loadKeys,
  usage: loadUsage,
  requests: loadRequests,
  deployments: startDeploymentPolling,
  models: loadEntries,
};

function showSignIn(message = '') {
  stopDeploymentPolling();
  $('signin').hidden = false;
  $('nav').hidden = true;
  $('sign-out').hidden = true;
  for (const v of document.querySelectorAll('.view')) v.hidden = true;
  $('signin-error').textContent = message;
  $('token').focus();
}

function show(view) {
  if (!(view in VIEWS)) view = 'keys';
  $('signin').hidden = true;
  $('nav').hidden = false;
  $('sign-out').hidden = false;
  for (const [name] of Object.entries(VIEWS)) $(`view-${name}`).hidden = name !== view;
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.dataset.view === view);
  if (view !== 'deployments') stopDeploymentPolling();
  VIEWS[view]();
}

async function signIn(event) {
  event.preventDefault();
  const value = $('token').value.trim();
  if (!value) return;
  token.set(value);
  try {
    await api('/admin/keys');
    $('token').value = '';
    show(location.hash.slice(1));
  } catch (err) {
    token.clear();
    showSignIn(err.status === 401 ? 'That token was refused.' : err.message);
  }
}

function start() {
  setupKeys();
  setupUsage();
  setupRequests();
  setupEntries();
  whenUnauthorized(() => showSignIn('The admin token was refused; sign in again.'));
  $('signin-form').addEventListener('submit', signIn);
  $('sign-out').addEventListener('click', () => {
    token.clear();
    showSignIn();
  });
  window.addEventListener('hashchange', () => {
    if (token.get()) show(location.hash.slice(1));
  });
  if (token.get()) show(location.hash.slice(1));
  else showSignIn();
}

start();
