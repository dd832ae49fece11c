// The role table and the mapping of an OIDC user's claims to a role: the rules an admin request meets
// before any route runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleFor } from '../../src/admin/api/roles.ts';
import { actorOf, reaches, setActor } from '../../src/admin/api/actor.ts';
import { userOf } from '../../src/admin/api/oidc-sign-in.ts';
import { CookieSigner, cookieValue } from '../../src/admin/api/session-cookie.ts';
import type { OidcConfig } from '../../src/core/config-types.ts';
import type { IncomingMessage } from 'node:http';

const need = (method: string, path: string) => ruleFor(method, path.split('/'))?.role ?? 'admin';

test('reads need a viewer, key changes a team administrator (for its team), the rest an administrator', () => {
  const table: [string, string, string, boolean][] = [
    ['GET', 'usage', 'viewer', false],
    ['HEAD', 'requests', 'viewer', false],
    ['GET', 'keys/k1', 'viewer', false],
    ['POST', 'reconcile', 'viewer', false],
    ['POST', 'keys', 'team_admin', true],
    ['PATCH', 'keys/k1', 'team_admin', true],
    ['DELETE', 'keys/k1', 'team_admin', true],
    ['POST', 'keys/k1/rotate', 'team_admin', true],
    ['POST', 'deployments/gpt%230/reset', 'admin', false],
    ['POST', 'teams', 'admin', false],
    ['PATCH', 'teams/t1', 'admin', false],
    ['PUT', 'usage', 'admin', false],
    ['GET', 'a-route-nobody-placed', 'admin', false],
  ];
  for (const [method, path, role, team] of table) {
    assert.equal(need(method, path), role, `${method} ${path}`);
    assert.equal(ruleFor(method, path.split('/'))?.team === true, team, `${method} ${path} team scope`);
  }
  assert.ok(reaches('admin', 'team_admin') && reaches('team_admin', 'viewer'));
  assert.ok(!reaches('viewer', 'team_admin') && !reaches('team_admin', 'admin'));
});

test('actorOf returns the principal the sign-in attached, the OS user without a request, and throws otherwise', () => {
  const req = {} as IncomingMessage;
  assert.throws(() => actorOf(req), /not passed the admin sign-in/);
  setActor(req, { kind: 'token', name: 'ci', role: 'viewer' });
  assert.deepEqual(actorOf(req), { kind: 'token', name: 'ci', role: 'viewer' });
  const cli = actorOf();
  assert.equal(cli.kind, 'cli');
  assert.equal(cli.role, 'admin');
});

const OIDC: OidcConfig = {
  issuer: 'https://idp.example.com',
  clientId: 'c',
  clientSecret: 's',
  groupsClaim: 'groups',
  teamClaim: 'team',
  roles: { admin: ['ops'], team_admin: ['leads'], viewer: ['finance'] },
  redirectUri: null,
  scopes: ['openid'],
  sessionSecret: null,
  sessionTtlMs: 1000,
};

test('the highest role any group grants wins; a team administrator without a team is a viewer; no role, no sign-in', () => {
  assert.equal(userOf(OIDC, { sub: 'a', groups: ['finance', 'ops'] })?.role, 'admin');
  assert.deepEqual(userOf(OIDC, { sub: 'b', email: 'b@x', groups: 'leads finance', team: 'pay' }), {
    sub: 'b',
    name: 'b@x',
    role: 'team_admin',
    team: 'pay',
  });
  assert.equal(userOf(OIDC, { sub: 'c', groups: ['leads'] })?.role, 'viewer');
  assert.equal(userOf(OIDC, { sub: 'd', groups: ['sales'] }), null);
  assert.equal(userOf(OIDC, { sub: 'e' }), null);
});

test('a session cookie is accepted as signed, until it expires; a changed byte or another secret opens nothing', () => {
  const signer = new CookieSigner(Buffer.from('k'.repeat(32)));
  const value = signer.sign({ sub: 'a', role: 'viewer' }, 2_000);
  assert.deepEqual(signer.verify(value, 1_000), { sub: 'a', role: 'viewer', exp: 2_000 });
  assert.equal(signer.verify(value, 2_000), null, 'expired');
  assert.equal(signer.verify(`${value.slice(0, -2)}AA`, 1_000), null);
  assert.equal(new CookieSigner(Buffer.from('x'.repeat(32))).verify(value, 1_000), null);
  assert.equal(signer.verify('garbage', 1_000), null);
  assert.equal(cookieValue('a=1; mg_session=xyz; b=2', 'mg_session'), 'xyz');
  assert.equal(cookieValue(undefined, 'mg_session'), undefined);
});
