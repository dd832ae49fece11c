// The admin API under /admin/: the HTTP front end of the operations in ../operations/ (the CLI is the other).
// It opens to `Authorization: Bearer` with `admin_token` or a named `admin_tokens` entry, or to a session
// cookie from an OIDC sign-in (/auth/login); each principal's role is checked against roles.ts before any
// route runs. With none of the three configured the server never calls it (404).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { GatewayError } from '../../core/errors.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import { bearerToken } from '../../auth/authenticate.ts';
import { hashKey, sameHash } from '../../auth/key-material.ts';
import { readBody, parseJsonBody } from '../../http/body.ts';
import { sendError, sendJson } from '../../http/respond.ts';
import { addressGroup } from '../../http/connection-guard.ts';
import { UsageError } from '../key-flags.ts';
import {
  createKey,
  deleteKey,
  findKeyOrFail,
  rotateKey,
  keyWithSpend,
  listKeysWithSpend,
  updateKey,
  type KeyOperations,
} from '../operations/key-operations.ts';
import {
  latestRequests,
  parseGroupBy,
  requestDetail,
  toCsv,
  usageReport,
  type UsageQuery,
} from '../operations/usage-operations.ts';
import { deploymentHealth, resetDeployment } from '../operations/deployment-health.ts';
import { reconcileExport } from '../operations/reconcile-operations.ts';
import type { AlertLog, AlertRecord } from '../../store/alert-log.ts';
import type { AuditLog } from '../../store/audit-log.ts';
import { auditCsv, audited, auditView } from '../operations/audit-trail.ts';
import { auditFilter } from './audit-query.ts';
import { createKeyBody, keyPatchFromBody, rotateKeyBody, updateKeyBody } from './key-bodies.ts';
import { openApiJson } from './openapi.ts';
import { SignInLimit } from './sign-in-limit.ts';
import { ADMIN_TOKEN_PRINCIPAL, actorOf, reaches, setActor, type Principal } from './actor.ts';
import { ruleFor } from './roles.ts';
import { createOidcSignIn, type OidcSignIn } from './oidc-sign-in.ts';
import { handleEntries, isEntryRoute } from './entry-routes.ts';
import { handleTeams, isTeamRoute } from './team-routes.ts';
import type { LiveConfig } from '../live-config.ts';

/** Admin answers carry keys once and spend always: never stored by a cache, never sniffed as another type. */
const NO_STORE = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
/** Admin bodies are small (a key's settings): a megabyte is plenty. */
const ADMIN_BODY_LIMIT = 1024 * 1024;
/** A provider's export of a month, per day and model (or per line item), is far below this. */
const EXPORT_BODY_LIMIT = 32 * 1024 * 1024;

export type AdminHandler = (req: IncomingMessage, res: ServerResponse, path: string, requestId: string) => void;

interface Call {
  gw: Gateway;
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  query: URLSearchParams;
  ops: KeyOperations;
  /** Who acts (actor.ts); a team administrator's reach is checked against its team. */
  actor: Principal;
  alerts: AlertLog | null;
  /** The audit trail; null where the gateway runs without (tests of the API alone). */
  audit: AuditLog | null;
  /** Providers and models changed at run time; null where the gateway runs without (tests of the API alone). */
  live: LiveConfig | null;
}

/** The principals the admin API knows, made once at boot. */
interface Credentials {
  tokens: { hash: string; principal: Principal }[];
  signIn: OidcSignIn | null;
}

/** Null when no admin token and no sign-in is configured: then /admin/ and /auth/ are not routed at all. */
export function createAdminApi(
  gw: Gateway,
  live: LiveConfig | null = null,
  extra: { alerts?: AlertLog | null; audit?: AuditLog | null } = {},
): AdminHandler | null {
  const { adminToken, adminTokens, oidc } = gw.config;
  if (adminToken === null && adminTokens.length === 0 && oidc === null) return null;
  const credentials: Credentials = {
    tokens: [
      ...(adminToken === null ? [] : [{ hash: hashKey(adminToken), principal: ADMIN_TOKEN_PRINCIPAL }]),
      ...(adminTokens.map((t) => ({
        hash: t.hash,
        principal: { kind: 'token', name: t.name, role: t.role, ...(t.team === undefined ? {} : { team: t.team }) },
      })) satisfies { hash: string; principal: Principal }[]),
    ],
    signIn: oidc === null ? null : createOidcSignIn(oidc, gw.log),
  };
  // A key made or changed here holds for the very next request to this replica (the cache reloads now,
  // not at its next poll); other replicas look a key they do not know up in the store (auth/authenticate.ts).
  const ops: KeyOperations = { store: gw.store, changed: () => gw.keys.refresh() };
  const signIns = new SignInLimit();
  const alerts = extra.alerts ?? null;
  const audit = extra.audit ?? null;
  return function adminRequest(req, res, path, requestId) {
    if (path.startsWith('/auth/')) {
      if (credentials.signIn !== null) return credentials.signIn.handle(req, res, path, requestId);
      req.resume();
      return sendError(res, {
        dialect: 'openai',
        error: new GatewayError('not_found', { message: 'Sign-in is not configured (the oidc setting).' }),
        requestId,
        headers: NO_STORE,
      });
    }
    const address = addressGroup(req.socket.remoteAddress);
    const now = Date.now();
    const wait = signIns.waitSeconds(address, now);
    if (wait > 0) {
      req.resume();
      sendError(res, {
        dialect: 'openai',
        error: new GatewayError('admin_sign_in_limited'),
        requestId,
        headers: { 'retry-after': String(wait), ...NO_STORE },
      });
      return;
    }
    const principal = principalOf(credentials, req);
    if (principal === null) {
      signIns.failed(address, now);
      req.resume();
      sendError(res, {
        dialect: 'openai',
        error: new GatewayError('invalid_api_key', {
          message:
            'The admin API needs `Authorization: Bearer <admin_token>` (the admin_token setting, or a named admin_tokens entry) or a session from /auth/login; API keys do not open it.',
        }),
        requestId,
        headers: { 'www-authenticate': 'Bearer', ...NO_STORE },
      });
      return;
    }
    signIns.succeeded(address);
    setActor(req, principal);
    const segments = path.slice('/admin/'.length).split('/');
    const rule = ruleFor(req.method ?? 'GET', segments);
    const needed = rule?.role ?? 'admin';
    if (!reaches(principal.role, needed)) {
      req.resume();
      sendError(res, {
        dialect: 'openai',
        error: new GatewayError('permission_denied', {
          message: `${req.method} /admin/${segments.join('/')} needs the ${needed} role; ${principal.name} is ${principal.role}.`,
        }),
        requestId,
        headers: NO_STORE,
      });
      return;
    }
    const q = req.url?.indexOf('?') ?? -1;
    const actor = actorOf(req);
    const call: Call = {
      gw,
      req,
      res,
      requestId,
      query: new URLSearchParams(q === -1 ? '' : req.url!.slice(q + 1)),
      // Every change this request makes is recorded as the actor's, from the caller's address.
      ops:
        audit === null
          ? ops
          : {
              ...ops,
              audit: {
                log: audit,
                actor: { kind: actor.kind, name: actor.name },
                source: req.socket.remoteAddress ?? null,
              },
            },
      actor,
      alerts,
      audit,
      live,
    };
    route(call, segments).catch((err: unknown) => {
      req.resume();
      const gerr = toGatewayError(err);
      if (gerr.status >= 500) gw.log.error({ requestId, err: gw.masker.mask(String(err)) }, 'admin request failed');
      sendError(res, { dialect: 'openai', error: gerr, requestId, headers: NO_STORE });
    });
  };
}

/** A bearer token matched by its digest (every configured token is compared, so timing tells nothing), else a session. */
function principalOf(credentials: Credentials, req: IncomingMessage): Principal | null {
  const token = bearerToken(req.headers.authorization);
  if (token !== null) {
    const digest = hashKey(token);
    let found: Principal | null = null;
    for (const t of credentials.tokens) if (sameHash(digest, t.hash) && found === null) found = t.principal;
    return found;
  }
  return credentials.signIn?.principalOf(req) ?? null;
}

/**
 * A team administrator reaches keys of its own team only: `team` is the key's (or the new key's) team.
 * Keys without a team field (a build without teams) belong to no team, so a team administrator reaches none.
 */
function checkTeam(c: Call, team: string | null | undefined): void {
  if (c.actor.role !== 'team_admin') return;
  if (team !== undefined && team !== null && team === c.actor.team) return;
  throw new GatewayError('permission_denied', {
    message: `${c.actor.name} manages the keys of team ${c.actor.team ?? '(none)'} only.`,
  });
}

/** A key's latest request time as the key list shows it; null for a key never used. */
function lastUsedAt(lastUsed: ReadonlyMap<string, number>, id: unknown): string | null {
  const ts = lastUsed.get(String(id));
  return ts === undefined ? null : new Date(ts).toISOString();
}

/** The team field of a record, when this build's keys have one. */
function teamOf(record: object): string | null | undefined {
  return (record as { team?: string | null }).team;
}

function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof UsageError) {
    const code = err.kind === 'not_found' ? 'not_found' : err.kind === 'conflict' ? 'conflict' : 'invalid_request';
    return new GatewayError(code, { message: err.message, param: err.param });
  }
  if (err instanceof z.ZodError) {
    const issue = err.issues[0];
    const param = issue.path.join('.') || null;
    return new GatewayError('invalid_request', { message: `${param ?? 'body'}: ${issue.message}`, param });
  }
  return new GatewayError('internal_error');
}

async function route(c: Call, segments: string[]): Promise<void> {
  const method = c.req.method === 'HEAD' ? 'GET' : (c.req.method ?? 'GET');
  const [first, id, action] = segments;
  if (segments.length === 1) {
    switch (first) {
      case 'openapi.json':
        return allow(c, method, ['GET'], () => reply(c, 200, openApiJson()));
      case 'keys':
        return allow(c, method, ['GET', 'POST'], async () => {
          if (method === 'GET') {
            // This replica's queued rows first: a key used a moment ago shows it.
            await c.gw.usage.flush();
            const [all, lastUsed] = await Promise.all([
              listKeysWithSpend(c.gw.store),
              c.gw.store.keysLastUsed?.() ?? new Map<string, number>(),
            ]);
            const data = (c.actor.role === 'team_admin' ? all.filter((k) => teamOf(k) === c.actor.team) : all).map(
              (k) => ({ ...k, last_used_at: lastUsedAt(lastUsed, k.id) }),
            );
            return reply(c, 200, JSON.stringify({ data }));
          }
          const body = createKeyBody.parse(await jsonBody(c));
          const patch = keyPatchFromBody(body);
          // A team administrator's new key is its team's: named or not, it may be no other.
          if (c.actor.role === 'team_admin') checkTeam(c, teamOf(patch) === undefined ? c.actor.team : teamOf(patch));
          const { key, record } = await createKey(c.ops, {
            ...patch,
            ...(c.actor.role === 'team_admin' ? { team: c.actor.team } : {}),
            name: body.name,
          });
          return reply(c, 201, JSON.stringify({ key, ...(await keyWithSpend(c.gw.store, record)) }));
        });
      case 'usage':
        return allow(c, method, ['GET'], () => usage(c));
      case 'audit':
        return allow(c, method, ['GET'], () => auditList(c));
      case 'me':
        return allow(c, method, ['GET'], () => reply(c, 200, JSON.stringify(c.actor)));
      case 'alerts':
        return allow(c, method, ['GET'], async () =>
          reply(
            c,
            200,
            JSON.stringify({
              data:
                c.alerts === null
                  ? []
                  : (await c.alerts.list({ limit: Math.min(intParam(c.query, 'limit') ?? 100, 1000) })).map(alertView),
            }),
          ),
        );
      case 'requests':
        return allow(c, method, ['GET'], async () => {
          knownParams(c.query, REQUEST_PARAMS, 'GET /admin/requests');
          await c.gw.usage.flush();
          const page = await latestRequests(c.gw.store, {
            ...usageQuery(c.query, c.actor),
            ...requestFilters(c.query),
            limit: intParam(c.query, 'limit'),
            before: intParam(c.query, 'before'),
          });
          return reply(c, 200, JSON.stringify(page));
        });
      case 'reconcile':
        return allow(c, method, ['POST'], async () => {
          await c.gw.usage.flush();
          const body = await readBody(c.req, {
            ...c.gw.bodyLimits,
            bytes: Math.min(EXPORT_BODY_LIMIT, c.gw.bodyLimits.bytes),
          });
          const tolerance = c.query.get('tolerance_usd');
          const report = await reconcileExport(c.gw.store, c.gw.config.models, {
            provider: c.query.get('provider') ?? undefined,
            text: body.toString('utf8'),
            from: c.query.get('from') ?? undefined,
            to: c.query.get('to') ?? undefined,
            toleranceUsd: tolerance === null ? undefined : Number(tolerance),
          });
          return reply(c, 200, JSON.stringify(report));
        });
      case 'deployments':
        return allow(c, method, ['GET'], () =>
          reply(
            c,
            200,
            JSON.stringify({
              data: deploymentHealth({
                models: c.gw.config.models,
                breaker: c.gw.breaker,
                keyRotation: c.gw.keyRotation,
              }),
            }),
          ),
        );
    }
  }
  // One request of the log, with its error message and attempts (GET /admin/requests/{id}).
  if (first === 'requests' && segments.length === 2 && id !== '')
    return allow(c, method, ['GET'], async () => {
      knownParams(c.query, NO_PARAMS, `GET /admin/requests/{id}`);
      await c.gw.usage.flush();
      const scope = c.actor.role === 'team_admin' ? { team: c.actor.team ?? '' } : {};
      return reply(c, 200, JSON.stringify(await requestDetail(c.gw.store, decodeSegment(id), scope)));
    });
  // Each configured MCP server's state (up, connecting, down), tool count and last error.
  if (first === 'mcp' && id === 'servers' && segments.length === 2)
    return allow(c, method, ['GET'], () =>
      reply(c, 200, JSON.stringify({ data: c.gw.mcp?.aggregator.health() ?? [] })),
    );
  if (c.live !== null && isEntryRoute(segments)) {
    const live = c.live;
    return handleEntries(
      {
        req: c.req,
        live,
        body: () => jsonBody(c),
        reply: (status, body) => reply(c, status, body),
        allow: (methods, run) => allow(c, method, methods, run),
        audit: (change) => audited(c.ops.audit, change),
      },
      method,
      segments,
      decodeSegment,
    );
  }
  if (isTeamRoute(segments))
    return handleTeams(
      {
        req: c.req,
        ops: c.ops,
        actor: c.actor,
        body: () => jsonBody(c),
        reply: (status, body) => reply(c, status, body),
        allow: (methods, run) => allow(c, method, methods, run),
      },
      method,
      segments,
      decodeSegment,
    );
  if (first === 'keys' && id !== undefined && id !== '') {
    const idOrName = decodeSegment(id);
    // A team administrator reaches another team's key by no route: checked before any change.
    if (c.actor.role === 'team_admin') checkTeam(c, teamOf(await findKeyOrFail(c.gw.store, idOrName)));
    if (segments.length === 2) {
      return allow(c, method, ['GET', 'PATCH', 'DELETE'], async () => {
        if (method === 'GET')
          return reply(
            c,
            200,
            JSON.stringify(await keyWithSpend(c.gw.store, await findKeyOrFail(c.gw.store, idOrName))),
          );
        if (method === 'DELETE') {
          const k = await deleteKey(c.ops, idOrName);
          return reply(c, 200, JSON.stringify({ id: k.id, deleted: true }));
        }
        const patch = keyPatchFromBody(updateKeyBody.parse(await jsonBody(c)));
        return reply(c, 200, JSON.stringify(await keyWithSpend(c.gw.store, await updateKey(c.ops, idOrName, patch))));
      });
    }
    if (segments.length === 3 && action === 'rotate') {
      return allow(c, method, ['POST'], async () => {
        const body = rotateKeyBody.parse(await optionalJsonBody(c));
        const { key, record, previousValidUntil } = await rotateKey(c.ops, idOrName, body.grace_seconds ?? 0);
        return reply(
          c,
          200,
          JSON.stringify({
            key,
            ...(await keyWithSpend(c.gw.store, record)),
            previous_valid_until: previousValidUntil === null ? null : new Date(previousValidUntil).toISOString(),
          }),
        );
      });
    }
    if (segments.length === 3 && (action === 'disable' || action === 'enable')) {
      return allow(c, method, ['POST'], async () => {
        const k = await updateKey(c.ops, idOrName, { disabled: action === 'disable' }, `key.${action}`);
        c.req.resume();
        return reply(c, 200, JSON.stringify(await keyWithSpend(c.gw.store, k)));
      });
    }
  }
  if (first === 'deployments' && segments.length === 3 && action === 'reset' && id !== '') {
    return allow(c, method, ['POST'], () => {
      c.req.resume();
      const routing = { models: c.gw.config.models, breaker: c.gw.breaker, keyRotation: c.gw.keyRotation };
      resetDeployment(routing, decodeSegment(id));
      reply(c, 200, JSON.stringify({ data: deploymentHealth(routing) }));
    });
  }
  c.req.resume();
  throw new GatewayError('not_found', {
    message: `No admin route for ${c.req.method} /admin/${segments.join('/')}; see GET /admin/openapi.json.`,
  });
}

async function allow(c: Call, method: string, methods: string[], run: () => Promise<void> | void): Promise<void> {
  if (!methods.includes(method)) {
    c.req.resume();
    sendError(c.res, {
      dialect: 'openai',
      error: new GatewayError('method_not_allowed', {
        message: `${c.req.method} is not allowed here; use ${methods.join(' or ')}.`,
      }),
      requestId: c.requestId,
      headers: { allow: methods.join(', '), ...NO_STORE },
    });
    return;
  }
  if (method === 'GET') c.req.resume();
  await run();
}

/** The audit trail, newest first, filtered; `format=csv` exports it. */
async function auditList(c: Call): Promise<void> {
  const { filter, format } = auditFilter(c.query);
  const entries = c.audit === null ? [] : await c.audit.list(filter);
  if (format === 'csv') {
    const csv = auditCsv(entries);
    c.res.writeHead(200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="modelgate-audit.csv"',
      'content-length': Buffer.byteLength(csv),
      'x-request-id': c.requestId,
      ...NO_STORE,
    });
    c.res.end(csv);
    return;
  }
  reply(c, 200, JSON.stringify({ data: entries.map(auditView) }));
}

async function usage(c: Call): Promise<void> {
  // This replica's queued rows first: a request answered a moment ago is in the report.
  await c.gw.usage.flush();
  const report = await usageReport(c.gw.store, {
    ...usageQuery(c.query, c.actor),
    groupBy: parseGroupBy(c.query.get('group_by') ?? undefined),
  });
  const format = c.query.get('format') ?? 'json';
  if (format === 'csv') {
    const csv = toCsv(report.groups.length > 0 || report.group_by.length > 0 ? report.groups : [report.totals]);
    c.res.writeHead(200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="modelgate-usage.csv"',
      'content-length': Buffer.byteLength(csv),
      'x-request-id': c.requestId,
      ...NO_STORE,
    });
    c.res.end(csv);
    return;
  }
  if (format !== 'json') throw new UsageError('format must be json or csv');
  reply(c, 200, JSON.stringify(report));
}

function usageQuery(query: URLSearchParams, actor?: Principal): UsageQuery {
  const q: UsageQuery = {};
  for (const name of ['from', 'to', 'key', 'model', 'deployment', 'endpoint', 'team'] as const) {
    const v = query.get(name);
    if (v !== null && v !== '') q[name] = v;
  }
  // A team administrator's reports are its team's whatever it asks; without a team, they hold nothing.
  if (actor?.role === 'team_admin') q.team = actor.team ?? '';
  const endpoint = q.endpoint;
  // Every logged endpoint is a path (`/v1/messages`, `/mcp`): anything else could match nothing.
  if (endpoint !== undefined && !endpoint.startsWith('/'))
    throw new UsageError(
      `endpoint is a path as the log shows it (/v1/chat/completions, /mcp), not "${endpoint}"`,
      'invalid',
      'endpoint',
    );
  const errors = query.get('errors');
  if (errors === 'true' || errors === '1') q.errorsOnly = true;
  else if (errors !== null && errors !== '' && errors !== 'false' && errors !== '0')
    throw new UsageError(`errors is true or false, not "${errors}"`, 'invalid', 'errors');
  return q;
}

/** What GET /admin/requests takes; anything else is a 400 naming it, never a filter quietly ignored. */
const REQUEST_PARAMS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'status',
  'endpoint',
  'key',
  'team',
  'model',
  'q',
  'request_id',
  'deployment',
  'errors',
  'limit',
  'before',
]);

const NO_PARAMS: ReadonlySet<string> = new Set();

/** A filter the route does not take, or one given twice (only one value could count), is a 400 naming it. */
function knownParams(query: URLSearchParams, known: ReadonlySet<string>, where: string): void {
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (!known.has(name))
      throw new GatewayError('invalid_request', {
        message:
          known.size === 0
            ? `unknown parameter "${name}"; ${where} takes none`
            : `unknown filter "${name}"; ${where} takes ${[...known].join(', ')}`,
        param: name,
      });
    if (seen.has(name))
      throw new GatewayError('invalid_request', { message: `${name} is given twice; give it once`, param: name });
    seen.add(name);
  }
}

/** The request log's own filters: a status code or class, one request id, a substring. */
function requestFilters(query: URLSearchParams): Pick<UsageQuery, 'status' | 'requestId' | 'text'> {
  const out: Pick<UsageQuery, 'status' | 'requestId' | 'text'> = {};
  const status = query.get('status');
  const requestId = query.get('request_id');
  const text = query.get('q');
  if (status !== null && status !== '') out.status = status;
  if (requestId !== null && requestId !== '') out.requestId = requestId;
  if (text !== null && text !== '') out.text = text;
  return out;
}

function intParam(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`${name} must be a whole number`, 'invalid', name);
  return n;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new UsageError('the id or name in the path is not valid percent-encoding');
  }
}

/** A body that may be empty (a POST with no settings): then `{}`. */
async function optionalJsonBody(c: Call): Promise<unknown> {
  const raw = await readBody(c.req, { ...c.gw.bodyLimits, bytes: Math.min(ADMIN_BODY_LIMIT, c.gw.bodyLimits.bytes) });
  return raw.length === 0 ? {} : parseJsonBody(raw).value;
}

async function jsonBody(c: Call): Promise<unknown> {
  return parseJsonBody(
    await readBody(c.req, { ...c.gw.bodyLimits, bytes: Math.min(ADMIN_BODY_LIMIT, c.gw.bodyLimits.bytes) }),
  ).value;
}

function reply(c: Call, status: number, body: string): void {
  sendJson(c.res, { status, body, requestId: c.requestId, headers: NO_STORE });
}

/** An alert as GET /admin/alerts shows it. */
function alertView(a: AlertRecord): Record<string, unknown> {
  return {
    id: a.id,
    event: a.event,
    created_at: new Date(a.createdAt).toISOString(),
    summary: a.summary,
    data: JSON.parse(a.payload) as unknown,
    status: a.status,
    attempts: a.attempts,
    last_error: a.lastError,
    delivered_at: a.deliveredAt === null ? null : new Date(a.deliveredAt).toISOString(),
  };
}
