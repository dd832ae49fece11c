// The dashboard's shell: sign-in with an admin token (kept in sessionStorage, this tab only) or with SSO (a
// session cookie from /auth/login), and the views.
import { api, token, whenUnauthorized } from './api.js';
import { loadKeys, setupKeys } from './keys.js';
import { loadUsage, setupUsage } from './usage.js';
import { loadRequests, setupRequests } from './requests.js';
import { startDeploymentPolling, stopDeploymentPolling } from './deployments.js';
import { loadEntries, setupEntries } from './entries.js';
import { loadAudit, setupAudit } from './audit.js';
import { loadTeams, setupTeams } from './teams.js';

const $ = (id) => document.getElementById(id);
const VIEWS = {
  keys: loadKeys,
  teams: loadTeams,
  usage: loadUsage,
  requests: loadRequests,
  deployments: startDeploymentPolling,
  models: loadEntries,
  audit: loadAudit,
};

/** Whether this tab is signed in with SSO (a session cookie) rather than a token. */
let session = false;

function showSignIn(message = '') {
  stopDeploymentPolling();
  session = false;
  $('signin').hidden = false;
  $('nav').hidden = true;
  $('sign-out').hidden = true;
  $('who').hidden = true;
  for (const v of document.querySelectorAll('.view')) v.hidden = true;
  $('signin-error').textContent = message;
  $('token').focus();
}

/** `hash`: the address after `#`, a view and maybe what to open in it (`requests/req_…`). */
function show(hash) {
  const slash = hash.indexOf('/');
  let view = slash === -1 ? hash : hash.slice(0, slash);
  const arg = slash === -1 ? undefined : hash.slice(slash + 1);
  if (!(view in VIEWS)) view = 'keys';
  $('signin').hidden = true;
  $('nav').hidden = false;
  $('sign-out').hidden = false;
  $('who').hidden = $('who').textContent === '';
  for (const [name] of Object.entries(VIEWS)) $(`view-${name}`).hidden = name !== view;
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.dataset.view === view);
  if (view !== 'deployments') stopDeploymentPolling();
  VIEWS[view](arg);
}

async function signIn(event) {
  event.preventDefault();
  const value = $('token').value.trim();
  if (!value) return;
  token.set(value);
  try {
    await whoAmI();
    $('token').value = '';
    show(location.hash.slice(1));
  } catch (err) {
    token.clear();
    showSignIn(err.status === 401 ? 'That token was refused.' : err.message);
  }
}

/** Who the gateway sees (GET /admin/me), shown in the header with the role. */
async function whoAmI() {
  const me = await api('/admin/me');
  $('who').textContent = `${me.name} · ${me.role.replace('_', ' ')}${me.team ? ` (${me.team})` : ''}`;
  // A viewer is not offered what it may not do (the API refuses it anyway: 403).
  document.body.dataset.role = me.role;
  return me;
}

async function sso() {
  // The sign-in with SSO button only where the gateway has `oidc:`.
  const config = await fetch('/ui/config.json', { cache: 'no-store' })
    .then((r) => (r.ok ? r.json() : {}))
    .catch(() => ({}));
  $('sso').hidden = config.sso !== true;
}

function start() {
  setupKeys();
  setupUsage();
  setupRequests();
  setupEntries();
  setupAudit();
  setupTeams();
  whenUnauthorized(() => showSignIn('The admin token was refused; sign in again.'));
  $('signin-form').addEventListener('submit', signIn);
  $('sign-out').addEventListener('click', () => {
    if (session) {
      location.href = '/auth/logout';
      return;
    }
    token.clear();
    showSignIn();
  });
  window.addEventListener('hashchange', () => {
    if (token.get() || session) show(location.hash.slice(1));
  });
  void sso();
  if (token.get()) {
    void whoAmI().catch(() => undefined);
    show(location.hash.slice(1));
    return;
  }
  // No token in this tab: a session cookie from an SSO sign-in may stand instead.
  whoAmI().then(
    () => {
      session = true;
      show(location.hash.slice(1));
    },
    () => showSignIn(),
  );
}

start();
