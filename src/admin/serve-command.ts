// `modelgate serve`: builds the gateway from config and runs it until SIGINT/SIGTERM.
import { teamSubject } from '../core/team-record.ts';
import { BodyLog } from '../pipeline/body-log.ts';
import { LoadShedder } from '../http/load-shedding.ts';
import { randomUUID } from 'node:crypto';
import { writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hostname } from 'node:os';
import type { GatewayConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import { Catalog } from '../catalog/catalog.ts';
import { generateKey, hashKey, newKeyId } from '../auth/key-material.ts';
import { maskKey } from '../core/mask-secrets.ts';
import { UsageWriter } from '../accounting/usage-writer.ts';
import { defaultSpill, UsageSpill } from '../accounting/usage-spill.ts';
import { Metrics } from '../observability/metrics.ts';
import { createLogger } from '../observability/logger.ts';
import { SecretMasker } from '../core/mask-secrets.ts';
import { openStore } from '../store/open-store.ts';
import { isPostgresUrl, maskDatabaseUrl } from '../store/database-url.ts';
import type { Store } from '../store/store.ts';
import type { MigrationStep } from '../store/migrations.ts';
import { openResponseStore } from '../store/response-store.ts';
import { openConversationStore } from '../store/conversation-store.ts';
import { startBodyPurge, startResponsePurge } from '../store/response-purge.ts';
import { signatureBook } from '../pipeline/signature-book.ts';
import { createGatewayServer } from '../http/server.ts';
import { tlsFront } from '../http/tls-listener.ts';
import type { Server } from 'node:http';
import type { Server as TlsServer } from 'node:tls';
import { attachResponsesWebSocket, loopbackHost } from '../pipeline/responses-websocket.ts';
import { routerFor } from '../pipeline/endpoint-table.ts';
import { metricsTokenCheck } from '../auth/authenticate.ts';
import { KeyCache } from '../auth/key-cache.ts';
import { createAdminApi } from './api/admin-api.ts';
import { openAlertLog, type AlertLog } from '../store/alert-log.ts';
import { openAuditLog, type AuditLog } from '../store/audit-log.ts';
import { Alerter } from './alerts/alerter.ts';
import { createUiHandler } from './ui-files.ts';
import { DecodeBudget } from '../http/decode-budget.ts';
import { closeProviderPools } from '../upstream/http-provider.ts';
import { upstreamPoolStats } from '../upstream/upstream-pools.ts';
import { applyDescriptorBudget } from './descriptor-check.ts';
import type { Gateway } from '../pipeline/gateway.ts';
import { stagePlan } from '../stages/plan.ts';
import { createMcpService } from '../mcp/service.ts';
import { createRouting } from '../routing/create-routing.ts';
import { startTracing } from '../observability/tracing.ts';
import { Admission } from '../admission/admission.ts';
import { SoloGuard } from '../admission/solo-guard.ts';
import { MemoryAdmissionStore } from '../admission/memory-store.ts';
import { Readiness } from '../observability/readiness.ts';
import { keySpendSamples } from '../observability/key-spend.ts';
import { checkConfig } from '../config/check.ts';
import { ConfigError } from '../config/load.ts';
import { gracefulStop } from './graceful-stop.ts';
import { reservationTtlFor, type AdmissionStore } from '../admission/store.ts';
import { glibcRuntimeVersion, mallocArenaNote, youngGenerationNote } from '../runtime/node-flags.ts';
import { warmTokenizer } from '../tokenizer/count-tokens.ts';
import { openEntryStore } from '../store/entry-store.ts';
import { encryptionKey } from '../config/sealed-credentials.ts';
import { LiveConfig } from './live-config.ts';

/**
 * While serving, how long a write waits for another process's SQLite lock (sqlite-store.ts busyTimeout):
 * on the event loop briefly, since every request waits with it; on the usage writer thread for up to a
 * second, the pause before a failed batch is retried anyway (usage-writer.ts), so a lock held for a
 * moment costs no error and no retry.
 */
const SERVING_BUSY_TIMEOUT_MS = 25;
const SERVING_WRITER_BUSY_TIMEOUT_MS = 1_000;

export async function serveCommand(fileConfig: GatewayConfig): Promise<void> {
  let config = fileConfig;
  // A price per token budgets a million times too loose: the start stops and says where it is.
  const fatal = checkConfig(config).filter((f) => f.fatal === true);
  if (fatal.length > 0)
    throw new ConfigError(
      `config error in ${config.source}:\n${fatal.map((f) => `  at ${f.path}: ${f.message}`).join('\n')}`,
    );
  const log = createLogger();
  // Before anything opens a descriptor of its own: a limit too low for max_connections stops here.
  applyDescriptorBudget(config, log);
  // One line per migration step, so an upgrade shows what it did to the database.
  const onMigrated = (step: MigrationStep): void =>
    log.info(
      { schema: step.schema, from: step.from, to: step.to },
      `migrated the database's ${step.schema} schema from version ${step.from} to ${step.to}`,
    );
  const store = await openStore(config.database, onMigrated);
  // The providers and models the database holds join the file's (models_source); the start serves the whole.
  const entries =
    config.modelsSource === 'file'
      ? null
      : await openEntryStore(config.database, isPostgresUrl(config.database), onMigrated);
  let swap: ((next: GatewayConfig, why: string) => void) | null = null;
  const live = await LiveConfig.open({
    path: config.source === '(built-in)' ? null : config.source,
    env: process.env,
    entries,
    encryptionKey: encryptionKey(process.env),
    log,
    onChange: (next, why) => swap?.(next, why),
  });
  // The command line's --port and --host hold over the file's.
  config = { ...live.config, listen: fileConfig.listen };
  await ensureFirstKey(store, config, log);
  // Rows a stop could not write are billed before any budget is loaded from the database.
  const spill = spillFor(config);
  if (spill !== null) {
    await spill.load(store).then(
      ({ rows, skipped }) => {
        if (rows > 0 || skipped > 0)
          log.warn({ rows, skipped, file: spill.path }, 'wrote the usage rows an earlier stop could not write');
      },
      (err: unknown) =>
        log.error(
          { err: String(err), file: spill.path },
          'could not write the usage rows an earlier stop left: they stay in the file for the next start',
        ),
    );
  }
  const keys = new KeyCache({
    store,
    onError: (err) =>
      log.error({ err: String(err) }, 'key refresh failed: serving the keys loaded before until the database answers'),
    onRecovered: () => log.info('key refresh works again'),
  });
  await keys.start();
  // Alerts only when webhooks are configured: otherwise no table, no timer and no check at all.
  const alertLog: AlertLog | null =
    config.alerts === null ? null : await openAlertLog(config.database, isPostgresUrl(config.database), onMigrated);
  const alerter =
    config.alerts === null || alertLog === null
      ? null
      : new Alerter({
          config: config.alerts,
          log: alertLog,
          logger: log,
          keys: () => keys.records(),
          keySpend: (keyId, period) => store.keySpend(keyId, period),
        });
  const usage = new UsageWriter({
    store,
    flushMs: config.usageFlushMs,
    flushRows: config.usageFlushRows,
    maxPending: config.usagePendingRows,
    onError: (err, rows) => log.error({ err: String(err), rows }, 'usage write failed: the rows are kept and retried'),
    onRecovered: (rows) => {
      log.info({ rows }, 'usage writes work again');
      // Rows spilled while the database was away are written now, not only at the next start.
      spill?.load(store).then(
        ({ rows: loaded }) => {
          if (loaded > 0) log.info({ rows: loaded, file: spill.path }, 'wrote the spilled usage rows');
        },
        (err: unknown) =>
          log.error(
            { err: String(err), file: spill.path },
            'could not write the spilled usage rows: the next start will',
          ),
      );
    },
    spill,
    // Written rows are reported to a shared admission store (made below; writes start with requests).
    onWritten:
      alerter === null
        ? (rows) => admission.rowsWritten(rows)
        : (rows) => {
            admission.rowsWritten(rows);
            alerter.rowsWritten(rows);
          },
    onSpilled: (rows, file) =>
      log.error(
        { rows, file },
        'usage rows the database would not take are kept in the spill file; the next start writes them',
      ),
    // The last resort: the rows themselves go to the log, so a supervisor's journal still holds the spend.
    onDropped: (rows, lost) =>
      log.error({ rows, lost }, 'usage rows lost: neither the database nor the spill file took them'),
  });
  const masker = new SecretMasker(providerSecrets(config));
  const reservationTtlMs = reservationTtlFor(config.models.map((m) => m.timeouts.totalMs));
  const solo = soloGuard(store, config, log);
  const admission = new Admission({
    solo: solo ?? undefined,
    store: await admissionStore(config, store),
    keySpend: (keyId, period) => store.keySpend(keyId, period),
    defaultMaxTokens: config.defaultMaxTokens,
    inFlightShare: config.inFlightBudgetShare,
    // Once when an outage starts and once when it ends, as the database's outage is.
    onError: (err, what) =>
      log.error(
        { err: masker.mask(String(err)), what },
        'admission store unreachable: requests of keys with limits are refused with 503 until it answers again',
      ),
    onRecovered: () => log.info('admission store answers again'),
  });
  // Durable totals go into the admission store before the first request; later keys and later
  // periods are loaded by the admission stage itself when it first sees them.
  await admission.store.ready?.().catch((err: unknown) => {
    const where = (config.redisUrl ?? '').replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:****@');
    throw new Error(`cannot reach the admission store at ${where}: ${(err as Error).message}`);
  });
  const allKeys = await store.listKeys();
  // A shared store outlives this process: free whatever this instance reserved before a crash.
  const teamSubjects = (await store.listTeams()).map((t) => teamSubject(t.id));
  const reclaimed = (await admission.store.reclaimOwn?.([...allKeys.map((k) => k.id), ...teamSubjects])) ?? 0;
  if (reclaimed > 0) log.warn({ reclaimed }, 'freed reservations left by this instance before it stopped');
  // The key cache's records carry their team objects: the teams' totals are loaded with the keys'.
  await admission.seed([...new Set(keys.records())], Date.now());
  // A replica that dies without writing its last rows leaves the shared spend above the rows: the first
  // replica to notice reconciles it (docs/budgets.md, "Reservations after a crash").
  admission.store.watchPeers?.({
    timeoutMs: config.redisPeerTimeoutMs,
    keys: () => admission.watchedKeys(Date.now()),
    onLost: (tag, freed, nanos) =>
      log.warn(
        { replica: tag.slice(0, 8), freed, unwrittenUsd: nanos / 1e9 },
        'a replica is gone (no heartbeat): its reservations are freed and the spend it never wrote rows for is taken back out',
      ),
    onError: (err) => log.error({ err: masker.mask(String(err)) }, 'replica heartbeat failed'),
  });
  // Another gateway on this database that counts the same keys: found before the first request.
  await solo?.start();
  let systems = deploymentSystems(config);
  const metrics = new Metrics({ providerOf: (id) => systems.get(id) ?? 'unknown' });
  metrics.watchUsage(usage);
  const shedder =
    config.overloadLoopDelayMs > 0
      ? new LoadShedder({ thresholdMs: config.overloadLoopDelayMs, requests: metrics })
      : null;
  if (shedder !== null) metrics.watchShedder(shedder);
  metrics.watchAdmission(admission);
  metrics.watchUpstreamPools(upstreamPoolStats);
  metrics.watchKeySpend(() => keySpendSamples(keys.records(), admission, Date.now()));
  // From here on a write that finds another process's lock gives up soon (on the loop) or within a
  // second (the usage writer thread), and a failed usage batch is retried (usage-writer.ts).
  store.busyTimeout?.(SERVING_BUSY_TIMEOUT_MS, SERVING_WRITER_BUSY_TIMEOUT_MS);
  const tracing = await startTracing(process.env, log);
  const responses = await openResponseStore(config.database, isPostgresUrl(config.database), onMigrated);
  const stopPurge = startResponsePurge(responses, log);
  const stopBodyPurge = config.bodyLog === null ? null : startBodyPurge(store, config.bodyLog.retentionMs, log);
  const conversations = await openConversationStore(config.database, isPostgresUrl(config.database), onMigrated);
  const bodyLimits = {
    bytes: config.bodyLimitBytes,
    progressMs: config.clientBodyTimeoutMs,
    decoding: new DecodeBudget(config.decodeBudgetBytes),
  };
  const gw: Gateway = {
    config,
    bodyLimits,
    catalog: new Catalog(config),
    keys,
    store,
    responses,
    conversations,
    // Kept as long as stored responses: the turn that sends a call back is as far off as one that continues a response.
    signatures: signatureBook(conversations.callSignatures({ retentionMs: config.responsesRetentionMs }), log, masker),
    usage,
    metrics,
    log,
    masker,
    admission,
    tracing,
    stages: stagePlan(config),
    bodyLog: config.bodyLog === null ? null : new BodyLog(config.bodyLog, masker),
    mcp: await createMcpService({ servers: config.mcpServers, log, registry: metrics.registry }),
    ...createRouting({ log, metrics, breaker: config.breaker, onTransition: alerter?.breakerChanged }),
  };
  // A new configuration is served by the next request: the catalog, the stage plan and the config are
  // replaced in one synchronous step, so a request sees the old set or the new, never a mix, and one in
  // flight keeps the model (deployments, providers, price) it resolved. Settings other than providers,
  // models and stage blocks take effect at the next start.
  swap = (next, why) => {
    const changed = restartSettings(gw.config, next);
    const config: GatewayConfig = {
      ...gw.config,
      source: next.source,
      providers: next.providers,
      models: next.models,
      stages: next.stages,
    };
    masker.add(providerSecrets(config));
    systems = deploymentSystems(config);
    const catalog = new Catalog(config);
    const stages = stagePlan(config);
    gw.catalog = catalog;
    gw.stages = stages;
    gw.config = config;
    log.info({ providers: config.providers.length, models: config.models.length }, why);
    // Budget reservations live as long as the longest request the start knew of (admission/store.ts).
    const longer = config.models.filter((m) => reservationTtlFor([m.timeouts.totalMs]) > reservationTtlMs);
    if (longer.length > 0)
      log.warn(
        { models: longer.map((m) => m.name), reservationTtlMs },
        'models whose timeouts.total_ms outlasts the budget reservations of this start: a longer request may be under-reserved until the next restart',
      );
    if (changed.length > 0)
      log.warn(
        { settings: changed },
        'changed settings that take effect at the next start: the running values are kept',
      );
    for (const f of checkConfig(config)) log.warn({ setting: f.path }, `config ${f.level}: ${f.message}`);
  };
  const readiness = new Readiness();
  readiness.add({ name: 'database', failing: () => keys.failing });
  readiness.add({ name: 'usage store', failing: () => usage.failing });
  const { reachable } = admission.store;
  if (reachable !== undefined) readiness.add({ name: 'redis', failing: () => !reachable.call(admission.store) });
  // The audit trail only where the admin API is open: without it nothing can change through this process.
  const auditLog: AuditLog | null =
    config.adminToken === null && config.adminTokens.length === 0 && config.oidc === null
      ? null
      : await openAuditLog(config.database, isPostgresUrl(config.database), onMigrated);
  const admin = createAdminApi(gw, live, { alerts: alertLog, audit: auditLog });
  alerter?.start();
  const server = createGatewayServer({
    ...gw,
    metricsAuthorized: metricsTokenCheck(config.metricsToken),
    router: routerFor(gw),
    admin,
    ui: createUiHandler({ enabled: admin !== null, sso: config.oidc !== null }),
    readiness,
    shedder,
  });
  const listening = (target: Server | TlsServer, port: number, host: string): Promise<number> =>
    new Promise<number>((resolve, reject) => {
      target.once('error', reject);
      // Connections the kernel holds for the gateway until its loop accepts them, one a turn: under a
      // burst (an overload, a client fleet reconnecting) a busy loop accepts late, and past this queue the
      // kernel drops SYNs, which clients retry only after 1 s, 3 s, 7 s. Node's default of 511 is short of
      // one such burst; the kernel caps the queue at net.core.somaxconn.
      target.listen({ port, host, backlog: Math.max(511, config.maxConnections) }, () => {
        const addr = target.address();
        resolve(typeof addr === 'object' && addr ? addr.port : port);
      });
    });
  const { tls } = config.listen;
  // With TLS the port is the TLS server's; node:http then listens on a loopback port of its own, which the
  // gateway's calls to itself use.
  const front = tls === undefined ? null : tlsFront(server, tls);
  const port = await listening(front ?? server, config.listen.port, config.listen.host);
  const selfPort = front === null ? port : await listening(server, 0, '127.0.0.1');
  const selfHost = front === null ? loopbackHost(config.listen.host) : '127.0.0.1';
  // Responses over WebSocket ride the HTTP path of this very listener.
  const responseSockets = attachResponsesWebSocket(server, { gw, selfUrl: () => `http://${selfHost}:${selfPort}` });
  log.info(
    {
      host: config.listen.host,
      port,
      config: config.source,
      database: maskDatabaseUrl(config.database),
      models: config.models.length,
      keys: keys.size(),
    },
    `modelgate listening on ${front === null ? 'http' : 'https'}://${config.listen.host}:${port}`,
  );
  // The mistakes `modelgate config check` reports, said at start too: each would fail or misprice requests.
  for (const f of checkConfig(config)) log.warn({ setting: f.path }, `config ${f.level}: ${f.message}`);
  // A model without a price costs nothing, so USD budgets do not limit it: said once, at start, for
  // models that reach a paid provider (an in-process one, the mock, is free by nature).
  const unpriced = config.models
    .filter((m) => m.price === null && m.deployments.some((d) => !d.provider.inProcess))
    .map((m) => m.name);
  if (unpriced.length > 0)
    log.warn(
      { models: unpriced },
      'models without a price: their calls cost $0 and USD budgets do not limit them (token budgets and rate limits still do)',
    );
  const heapNote = youngGenerationNote({
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
    constrainedMemory: process.constrainedMemory(),
  });
  if (heapNote !== null) log[heapNote.level](heapNote.message);
  const arenaNote = mallocArenaNote({
    mallocArenaMax: process.env.MALLOC_ARENA_MAX,
    glibcVersion: glibcRuntimeVersion,
  });
  if (arenaNote !== null) log.info(arenaNote);
  // Now rather than on the first request that needs a token count, which would wait for the load.
  warmTokenizer().catch((err: unknown) =>
    log.warn({ err: String(err) }, 'tokenizer tables not preloaded: the first request that needs them loads them'),
  );

  live.start();
  const stop = gracefulStop({
    config,
    log,
    server,
    readiness,
    inFlight: () => metrics.inFlight,
    onClosing: () => {
      gw.mcp?.aggregator.drain();
      responseSockets.drain();
    },
    release: async () => {
      live.stop();
      await gw.mcp?.aggregator.stop();
      await usage.close();
      await alerter?.stop();
      await alertLog?.close();
      await auditLog?.close();
      await solo?.stop();
      await tracing
        ?.shutdown()
        .catch((err: unknown) => log.warn({ err: String(err) }, 'shutting down: could not export the last spans'));
      // A store that cannot be closed cleanly (Redis already gone) must not turn a clean stop into a crash.
      stopPurge();
      stopBodyPurge?.();
      for (const [what, close] of [
        ['admission store', () => admission.store.close()],
        ['upstream pools', closeProviderPools],
        ['stored responses', () => responses.close()],
        ['conversations', () => conversations.close()],
        ['providers and models store', () => entries?.close() ?? Promise.resolve()],
        ['database', () => store.close()],
      ] as const) {
        await close().catch((err: unknown) =>
          log.warn({ err: masker.mask(String(err)) }, `shutting down: could not close the ${what}`),
        );
      }
    },
    onStopping: () => keys.stop(),
  });
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // SIGHUP reloads the file (a file that does not validate is refused and the running config kept).
  process.on('SIGHUP', () => void live.reloadFile('SIGHUP'));
}

/** The gateway's row in the database's list of gateways, and what it does when it is not alone. */
function soloGuard(store: Store, config: GatewayConfig, log: ReturnType<typeof createLogger>): SoloGuard | null {
  const { putGateway, listGateways, removeGateway } = store;
  if (
    putGateway === undefined ||
    listGateways === undefined ||
    removeGateway === undefined ||
    config.database === ':memory:'
  )
    return null;
  return new SoloGuard({
    registry: {
      putGateway: putGateway.bind(store),
      listGateways: listGateways.bind(store),
      removeGateway: removeGateway.bind(store),
    },
    self: {
      id: randomUUID(),
      host: hostname(),
      pid: process.pid,
      startedAt: Date.now(),
      shared: config.redisUrl !== null,
    },
    onChange: (conflict) => {
      if (conflict !== null)
        log.error(
          { fix: 'set `redis:` on every gateway sharing the database, or give each its own database' },
          `another gateway is live on the same database: ${conflict}`,
        );
      else log.info('no other gateway counts limits on this database now: keys with limits are served again');
    },
    onError: (err) => log.warn({ err: String(err) }, "could not update this gateway's row in the database"),
  });
}

/** The spill file: as configured, or on another volume than an SQLite file and beside it; none for an in-memory database. */
function spillFor(config: GatewayConfig): UsageSpill | null {
  if (config.usageSpillFile !== null) return new UsageSpill(config.usageSpillFile);
  if (config.database === ':memory:' || isPostgresUrl(config.database)) return null;
  return defaultSpill(config.database);
}

/**
 * Memory for one node; Redis (shared by replicas) when `redis:` is set. `redis_prefix` (or
 * MODELGATE_REDIS_PREFIX) namespaces the Redis keys, so gateways that must not share budgets can share one Redis.
 */
async function admissionStore(config: GatewayConfig, db: Store): Promise<AdmissionStore> {
  const reservationTtlMs = reservationTtlFor(config.models.map((m) => m.timeouts.totalMs));
  if (config.redisUrl === null) return new MemoryAdmissionStore({ reservationTtlMs });
  // Loaded only when configured: the Redis client holds memory a single node never needs.
  const { RedisAdmissionStore } = await import('../admission/redis-store.ts');
  return new RedisAdmissionStore({
    url: config.redisUrl,
    prefix: config.redisPrefix ?? undefined,
    instanceId: config.instanceId ?? defaultInstanceId(config),
    reservationTtlMs,
    spentFor: (keyId, periodStart) => db.keySpend(keyId, periodStart),
  });
}

/**
 * host:listen-address, so a replica restarted in its place frees what its predecessor reserved. A
 * random port (0) names no place: every replica on the host would share the id and free each other's
 * live reservations, so such an instance gets an id of its own (its leftovers wait for their TTL).
 */
function defaultInstanceId(config: GatewayConfig): string {
  if (config.listen.port === 0)
    return `${hostname()}:${config.listen.host}:pid${process.pid}-${randomUUID().slice(0, 8)}`;
  return `${hostname()}:${config.listen.host}:${config.listen.port}`;
}

// The first start on an empty database creates one key and writes it to a 0600 file beside the
// database, so a first request needs no extra step and the key never reaches the log or stdout.
async function ensureFirstKey(
  store: Store,
  config: GatewayConfig,
  log: ReturnType<typeof createLogger>,
): Promise<void> {
  if (config.database === ':memory:' || process.env.MODELGATE_NO_FIRST_KEY === '1') return;
  if ((await store.listKeys()).length > 0) return;
  // A shared database has no directory beside it for the file, and hosts starting at once would each
  // make a key: its operator makes the first one.
  if (isPostgresUrl(config.database)) {
    log.warn(
      'the database has no keys yet: create one with `modelgate keys create --name NAME` (with the same --config)',
    );
    return;
  }
  const file = join(dirname(config.database), 'first-key.txt');
  if (existsSync(file)) return;
  const key = generateKey();
  const rec: KeyRecord = {
    id: newKeyId(),
    name: 'first-key',
    hash: hashKey(key),
    masked: maskKey(key),
    models: null,
    expiresAt: null,
    disabled: false,
    budgetUsd: null,
    tokenBudget: null,
    budgetPeriod: null,
    rpm: null,
    tpm: null,
    maxConcurrency: null,
    createdAt: Date.now(),
  };
  await store.insertKey(rec);
  writeFileSync(file, key + '\n', { mode: 0o600 });
  log.info(
    { keyId: rec.id, masked: rec.masked, file },
    `created a first API key; it is in ${file} (delete the file once you have stored the key)`,
  );
}

/** gen_ai.provider.name of each deployment (OpenTelemetry's names; the mock is modelgate's own). */
function deploymentSystems(config: GatewayConfig): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of config.models) for (const d of m.deployments) names.set(d.id, d.provider.system);
  return names;
}

/** What a reload leaves as it is: every setting but providers, models and the stage blocks. */
const LIVE_SETTINGS: ReadonlySet<string> = new Set(['source', 'providers', 'models', 'stages', 'listen']);

/** The settings a reloaded file changes that only a start applies, by their config names. */
function restartSettings(running: GatewayConfig, next: GatewayConfig): string[] {
  return Object.keys(next).filter(
    (k) =>
      !LIVE_SETTINGS.has(k) &&
      JSON.stringify(running[k as keyof GatewayConfig]) !== JSON.stringify(next[k as keyof GatewayConfig]),
  );
}

/** Header names whose values are credentials (Azure's `api-key`, a proxy's token). */
const CREDENTIAL_HEADER = /key|token|auth|secret|password|signature|cookie/i;

/** What an upstream may echo back and must be masked wherever it appears: keys and credential headers. */
function providerSecrets(config: GatewayConfig): string[] {
  return config.providers.flatMap((p) => [
    ...p.apiKeys,
    ...Object.entries(p.headers)
      .filter(([name]) => CREDENTIAL_HEADER.test(name))
      .map(([, value]) => value),
  ]);
}
