// The admin API under /admin/: the HTTP front end of the operations in ../operations/ (the CLI is the other).
// Only `Authorization: Bearer <admin_token>` opens it; without a configured token the server never calls it (404).
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
  keyWithSpend,
  listKeysWithSpend,
  updateKey,
  type KeyOperations,
} from '../operations/key-operations.ts';
import { latestRequests, parseGroupBy, toCsv, usageReport, type UsageQuery } from '../operations/usage-operations.ts';
import { deploymentHealth, resetDeployment } from '../operations/deployment-health.ts';
import { reconcileExport } from '../operations/reconcile-operations.ts';
import { createKeyBody, keyPatchFromBody, updateKeyBody } from './key-bodies.ts';
import { openApiJson } from './openapi.ts';
import { SignInLimit } from './sign-in-limit.ts';
import { handleEntries, isEntryRoute } from './entry-routes.ts';
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
  /** Providers and models changed at run time; null where the gateway runs without (tests of the API alone). */
  live: LiveConfig | null;
}

/** Null when no admin token is configured: then /admin/ is not routed at all. */
export function createAdminApi(gw: Gateway, live: LiveConfig | null = null): AdminHandler | null {
  if (gw.config.adminToken === null) return null;
  const tokenHash = hashKey(gw.config.adminToken);
  // A key made or changed here holds for the very next request to this replica (the cache reloads now,
  // not at its next poll); other replicas look a key they do not know up in the store (auth/authenticate.ts).
  const ops: KeyOperations = { store: gw.store, changed: () => gw.keys.refresh() };
  const signIns = new SignInLimit();
  return function adminRequest(req, res, path, requestId) {
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
    const token = bearerToken(req.headers.authorization);
    // Both sides hashed first: the comparison takes the same time whatever was sent.
    if (token === null || !sameHash(hashKey(token), tokenHash)) {
      signIns.failed(address, now);
      req.resume();
      sendError(res, {
        dialect: 'openai',
        error: new GatewayError('invalid_api_key', {
          message:
            'The admin API needs `Authorization: Bearer <admin_token>` (the admin_token setting); API keys do not open it.',
        }),
        requestId,
        headers: { 'www-authenticate': 'Bearer', ...NO_STORE },
      });
      return;
    }
    signIns.succeeded(address);
    const q = req.url?.indexOf('?') ?? -1;
    const call: Call = {
      gw,
      req,
      res,
      requestId,
      query: new URLSearchParams(q === -1 ? '' : req.url!.slice(q + 1)),
      ops,
      live,
    };
    route(call, path.slice('/admin/'.length).split('/')).catch((err: unknown) => {
      req.resume();
      const gerr = toGatewayError(err);
      if (gerr.status >= 500) gw.log.error({ requestId, err: gw.masker.mask(String(err)) }, 'admin request failed');
      sendError(res, { dialect: 'openai', error: gerr, requestId, headers: NO_STORE });
    });
  };
}

function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof UsageError) {
    const code = err.kind === 'not_found' ? 'not_found' : err.kind === 'conflict' ? 'conflict' : 'invalid_request';
    return new GatewayError(code, { message: err.message });
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
          if (method === 'GET') return reply(c, 200, JSON.stringify({ data: await listKeysWithSpend(c.gw.store) }));
          const body = createKeyBody.parse(await jsonBody(c));
          const { key, record } = await createKey(c.ops, { ...keyPatchFromBody(body), name: body.name });
          return reply(c, 201, JSON.stringify({ key, ...(await keyWithSpend(c.gw.store, record)) }));
        });
      case 'usage':
        return allow(c, method, ['GET'], () => usage(c));
      case 'requests':
        return allow(c, method, ['GET'], async () => {
          await c.gw.usage.flush();
          const page = await latestRequests(c.gw.store, {
            ...usageQuery(c.query),
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
      },
      method,
      segments,
      decodeSegment,
    );
  }
  if (first === 'keys' && id !== undefined && id !== '') {
    const idOrName = decodeSegment(id);
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
    if (segments.length === 3 && (action === 'disable' || action === 'enable')) {
      return allow(c, method, ['POST'], async () => {
        const k = await updateKey(c.ops, idOrName, { disabled: action === 'disable' });
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

async function usage(c: Call): Promise<void> {
  // This replica's queued rows first: a request answered a moment ago is in the report.
  await c.gw.usage.flush();
  const report = await usageReport(c.gw.store, {
    ...usageQuery(c.query),
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

function usageQuery(query: URLSearchParams): UsageQuery {
  const q: UsageQuery = {};
  for (const name of ['from', 'to', 'key', 'model', 'deployment', 'endpoint'] as const) {
    const v = query.get(name);
    if (v !== null && v !== '') q[name] = v;
  }
  const errors = query.get('errors');
  if (errors === 'true' || errors === '1') q.errorsOnly = true;
  return q;
}

function intParam(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`${name} must be a whole number`);
  return n;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new UsageError('the id or name in the path is not valid percent-encoding');
  }
}

async function jsonBody(c: Call): Promise<unknown> {
  return parseJsonBody(
    await readBody(c.req, { ...c.gw.bodyLimits, bytes: Math.min(ADMIN_BODY_LIMIT, c.gw.bodyLimits.bytes) }),
  ).value;
}

function reply(c: Call, status: number, body: string): void {
  sendJson(c.res, { status, body, requestId: c.requestId, headers: NO_STORE });
}
