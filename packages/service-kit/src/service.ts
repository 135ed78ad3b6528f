import { mediaPathsOf } from './http/media-paths.js';
import type { RouteSpec, ServiceName } from '@ledgerline/contracts';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { EntitySchema, MigrationObject } from '@mikro-orm/core';
import type { StreamName } from '@ledgerline/contracts';
import { baseConfigSchema, ConfigError, loadConfig, admissionOf, uploadLimitOf, type BaseConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { MetricsRegistry } from './metrics.js';
import { createHttpApp } from './http/app.js';
import { listen } from './http/listen.js';
import type { AnswerSealer, KitEnv } from './http/context.js';
import { unitOfWork } from './http/unit-of-work.js';
import { answerText } from './http/answer-text.js';
import { initOrm } from './db/orm.js';
import { withDatabase } from './db/database-url.js';
import type { LiveSql } from './db/live-sql.js';
import { EventBus } from './events/bus.js';
import { OutboxRelay, prepareEvent, recordEvent, type PreparedEvent } from './events/outbox.js';
import { IdempotentConsumer, type ConsumerDefinition } from './events/consumer.js';
import { DeadLetterCount } from './events/dead-letters.js';
import type { NewEvent } from './events/envelope.js';
import { requestReply, startResponders, type ResponderDefinition } from './events/rpc.js';
import { organisationReplicaMigration } from './organisations/replica.js';
import { organisationReplicaConsumer } from './events/organisation-replica-consumer.js';
import { operationContext, type OperationContext } from './context.js';
import { RetentionSweeper, kitRetentionRules, type RetentionRule } from './db/retention.js';
import { startTracing, traceStatements } from './tracing.js';
import { CommitGroups } from './db/commit-groups.js';
import { AuditChainer } from './audit/audit-chain.js';
import { auditedRoutes } from './audit/audit-record.js';
import { auditResponders } from './audit/audit-responders.js';
import type { AuditHook } from './http/audit-hook.js';

/** What a service's `resources` hook may hand back: anything, closed at stop when it has `close`. */
export type ServiceResources = object & { close?: () => Promise<void> | void };

export interface ServiceDeps<C extends BaseConfig = BaseConfig, R = unknown> {
  config: C & { PORT: number };
  /**
   * The service's own long-lived resources (a printer, a mailer, a secret box), built once by its
   * `resources` hook before anything else runs and closed after everything else stopped.
   */
  resources: R;
  orm: MikroORM;
  bus: EventBus;
  log: Logger;
  metrics: MetricsRegistry;
  /** Records an event in the outbox within the transaction of `em`. */
  emit: <T>(em: EntityManager, ev: NewEvent<T>) => Promise<string>;
  /** Builds an event's outbox row without writing it, for a write that inserts it in its own statement. */
  prepareEvent: <T>(ev: NewEvent<T>, dataJson?: string) => PreparedEvent;
}

type DepsOf<S extends z.ZodObject, R> = ServiceDeps<z.infer<S> & BaseConfig, R>;

export interface ServiceDefinition<S extends z.ZodObject = typeof baseConfigSchema, R extends ServiceResources = {}> {
  name: string;
  defaultPort: number;
  /** Extra configuration keys of this service (merged into the base schema). */
  configSchema?: S;
  entities: EntitySchema<any, any>[];
  migrations: MigrationObject[];
  /** Database functions and triggers kept as .sql files: their current definitions, applied after the migrations whenever one changes (decision 233). */
  liveSql?: readonly LiveSql[];
  /**
   * Keep a replica of every organisation's profile (`kit_organisations`, fed by
   * `settings.organisation.updated`); read it with `organisationReplica()`.
   */
  organisationReplica?: boolean;
  /** The stream this service publishes to; created at boot. */
  stream?: StreamName;
  /**
   * Builds the service's long-lived resources once, when the database and the bus are up and
   * before `onStart`, consumers or routes; they reach every later hook as `deps.resources` and are
   * closed (`close()`) at stop after the server, consumers and relay. A hook that throws stops the
   * boot (closing what was opened), so a missing secret fails before anything is seeded or printed.
   */
  resources?: (deps: DepsOf<S, undefined>) => R | Promise<R>;
  routes: (app: Hono<KitEnv>, deps: DepsOf<S, R>) => void;
  consumers?: (deps: DepsOf<S, R>) => ConsumerDefinition[];
  /** NATS request-reply handlers other services call for answers they need now. */
  responders?: (deps: DepsOf<S, R>) => ResponderDefinition[];
  /**
   * Seals secret-bearing answers kept for Idempotency-Key replays (settings passes its secret
   * box); without it such a replay is 409 `secret_already_shown`.
   */
  answerSealer?: (deps: DepsOf<S, R>) => AnswerSealer;
  /** Runs after migrations and before the HTTP server listens (seeding, replicas, timers). */
  onStart?: (deps: DepsOf<S, R>) => Promise<void | (() => Promise<void>)>;
  /** The service's own tables whose old rows the retention sweep deletes (beside the kit's). */
  retention?: (deps: DepsOf<S, R>) => RetentionRule[];
  /**
   * The route table whose rows for this service name the writes the kit keeps an audit record of
   * (decision 211): the shared table (`ROUTES`) unless given — a service outside it, such as the
   * kit's own test service, names its audited routes here.
   */
  routeTable?: readonly RouteSpec[];
}

/**
 * The context of an operation a service starts itself (seeding at boot, a timer): the same
 * emit, ask and clock as a request's, with `actor` saying who acts (`bootstrap`, `scheduler`).
 */
export function serviceContext(deps: ServiceDeps<BaseConfig, unknown>, em: EntityManager, actor: string, orgId: number | null = null): OperationContext {
  return operationContext({
    orgId,
    actor,
    requestId: actor,
    traceparent: null,
    em,
    log: deps.log,
    emit: deps.emit,
    prepareEvent: deps.prepareEvent,
    ask: (subject, orgId, data) => requestReply(deps.bus, subject, orgId, data),
  });
}

/** Postgres connections of the process's pool: in use, idle, and requests waiting for one. */
function watchPool(orm: MikroORM, metrics: MetricsRegistry): void {
  const pool = (orm.em.getConnection().getKnex().client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } }).pool;
  if (!pool) return;
  const gauge = metrics.gauge('db_pool_connections', 'Postgres pool connections by state (used, idle, waiting for one)');
  gauge.set({ state: 'used' }, () => pool.numUsed());
  gauge.set({ state: 'idle' }, () => pool.numFree());
  gauge.set({ state: 'waiting' }, () => pool.numPendingAcquires());
}

export function defineService<S extends z.ZodObject = typeof baseConfigSchema, R extends ServiceResources = {}>(def: ServiceDefinition<S, R>): ServiceDefinition<S, R> {
  return def;
}

export interface RunningService<C extends BaseConfig = BaseConfig, R = unknown> {
  name: string;
  url: string;
  port: number;
  deps: ServiceDeps<C, R>;
  app: Hono<KitEnv>;
  relay: OutboxRelay;
  consumers: IdempotentConsumer[];
  retention: RetentionSweeper;
  close: () => Promise<void>;
}

/**
 * Boots one service: configuration, database (created and migrated), NATS streams, the outbox
 * relay, idempotent consumers and the HTTP server, all from one definition. Used by `main.ts`
 * of every service and by the tests, which start services in-process with their own env.
 */
/** The migrations a service's database runs (the kit's own come first, in `initOrm`): the organisation replica's table when it keeps one, then its own. */
export function serviceMigrations(def: { organisationReplica?: boolean; migrations: MigrationObject[] }): MigrationObject[] {
  return def.organisationReplica ? [organisationReplicaMigration, ...def.migrations] : def.migrations;
}

export async function startService<S extends z.ZodObject, R extends ServiceResources = {}>(
  def: ServiceDefinition<S, R>,
  env: Record<string, string | undefined> = process.env,
): Promise<RunningService<z.infer<S> & BaseConfig, R>> {
  const schema = baseConfigSchema
    .extend({ PORT: z.coerce.number().int().min(0).max(65535).default(def.defaultPort) })
    .extend((def.configSchema?.shape ?? {}) as z.ZodRawShape);
  const config = loadConfig(schema, env) as z.infer<S> & BaseConfig & { PORT: number };
  const log = createLogger(def.name, config.LOG_LEVEL);
  const metrics = new MetricsRegistry('ledgerline');
  const orm = await initOrm({
    databaseUrl: config.DATABASE_URL,
    databaseName: `${config.DATABASE_PREFIX}${def.name}`,
    entities: def.entities,
    migrations: serviceMigrations(def),
    liveSql: def.liveSql,
    log: (msg) => log.debug(msg),
    warn: (msg) => log.warn('database connection', { detail: msg }),
    idleInTransactionTimeoutMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
  });
  const bus = await EventBus.connect(config, `ledgerline-${def.name}`, log);
  if (def.stream) await bus.ensureStream(def.stream);
  await bus.ensureStream('DLQ');

  // every host of DATABASE_URL: the relay's own connection follows a failover as the pool's do
  const relay = new OutboxRelay(withDatabase(config.DATABASE_URL, `${config.DATABASE_PREFIX}${def.name}`), bus, log, config.OUTBOX_POLL_MS, metrics, undefined, config.OUTBOX_LEADER_TIMEOUT_MS);
  watchPool(orm, metrics);
  traceStatements(orm.em.getConnection().getKnex(), `${config.DATABASE_PREFIX}${def.name}`);
  const bare: ServiceDeps<z.infer<S> & BaseConfig, undefined> = {
    config,
    orm,
    bus,
    log,
    metrics,
    resources: undefined,
    emit: (em, ev) => recordEvent(em, def.name, ev),
    prepareEvent: (ev, dataJson) => prepareEvent(def.name, ev, dataJson),
  };
  let resources: R;
  try {
    resources = def.resources ? await def.resources(bare) : ({} as R);
  } catch (err) {
    await bus.close();
    await orm.close(true);
    throw err;
  }
  const deps: ServiceDeps<z.infer<S> & BaseConfig, R> = { ...bare, resources };

  const stopHooks: Array<() => Promise<void>> = [];
  if (typeof resources.close === 'function') stopHooks.push(async () => resources.close?.());
  const stopHook = await def.onStart?.(deps);
  if (stopHook) stopHooks.unshift(stopHook);

  // shared by requests that write numbered documents and by consumers that share commits (their lanes differ)
  const commitGroups = new CommitGroups(orm, { log, metrics });
  const consumerDefinitions = [...(def.organisationReplica ? [organisationReplicaConsumer(def.name)] : []), ...(def.consumers?.(deps) ?? [])];
  const deadLetters = new DeadLetterCount(bus, def.name, log, metrics);
  const consumers = consumerDefinitions.map(
    (cd) =>
      new IdempotentConsumer(
        cd,
        orm,
        bus,
        log,
        def.name,
        { service: def.name, maxDeliver: config.CONSUMER_MAX_DELIVER, ackWaitMs: config.CONSUMER_ACK_WAIT_MS, onCommitted: () => relay.kick(), onDeadLettered: () => deadLetters.kick() },
        metrics,
        commitGroups,
      ),
  );
  for (const c of consumers) await c.start();
  const auditRetained = config.AUDIT_RETENTION > 0;
  const responders = startResponders([...(def.responders?.(deps) ?? []), ...auditResponders(def.name, auditRetained)], orm, bus, log, `ledgerline-${def.name}`);
  const chainer = new AuditChainer(orm, log);
  chainer.start();
  relay.start();
  deadLetters.start();
  const retention = new RetentionSweeper(
    orm,
    [...kitRetentionRules(config), ...(auditRetained ? [{ table: 'kit_audit_events', key: ['id'], old: 'hash is not null and recorded_at < ?', keepMs: config.AUDIT_RETENTION }] : []), ...(def.retention?.(deps) ?? [])],
    { everyMs: config.RETENTION_SWEEP_MS, batch: config.RETENTION_BATCH },
    log,
    metrics,
  );
  retention.start();

  const app = createHttpApp({
    service: def.name,
    logger: log,
    metrics,
    bodyLimit: config.BODY_LIMIT_BYTES,
    uploadLimit: uploadLimitOf(config),
    // which paths answer or take other media types: the route table's `produces` and `consumes`
    ...mediaPathsOf(def.name as ServiceName),
    internalToken: config.INTERNAL_TOKEN,
    trustInternalHeaders: true,
    accessLogSample: config.ACCESS_LOG_SAMPLE,
    failureLinesPerSecond: config.FAILURE_LOG_PER_SECOND,
    admission: admissionOf(config),
    readiness: {
      database: async () => orm.isConnected(),
      nats: async () => bus.isConnected(),
    },
  });
  // a write's audit record reads the resource as it stood through this app's own GET (decision 211)
  const audit: AuditHook = {
    routes: auditedRoutes(def.name, def.routeTable),
    read: async (path, headers) => {
      const res = await app.request(path, { headers });
      return res.status === 200 && (res.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(await answerText(res)) : null;
    },
  };
  app.use(
    '/v1/*',
    unitOfWork(
      orm,
      () => {
        relay.kick();
        chainer.kick();
      },
      def.answerSealer?.(deps),
      commitGroups,
      audit,
    ),
  );
  def.routes(app, deps);

  const { server, port, url } = await listen(app.fetch, config, metrics);
  log.info(`${def.name} listening`, { url });

  let closed = false;
  return {
    name: def.name,
    url,
    port,
    deps,
    app,
    relay,
    consumers,
    retention,
    close: async () => {
      if (closed) return;
      closed = true;
      await new Promise<void>((r) => server.close(() => r()));
      for (const r of responders) r.unsubscribe();
      for (const c of consumers) await c.stop();
      commitGroups.close();
      await relay.stop();
      await deadLetters.stop();
      await retention.stop();
      await chainer.stop();
      for (const h of stopHooks) await h();
      await bus.close();
      await orm.close(true);
    },
  };
}

/** Entry point of a service process: start, log where it listens, stop cleanly on a signal. */
export function runMain<S extends z.ZodObject, R extends ServiceResources>(def: ServiceDefinition<S, R>): void {
  // spans go out over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set
  const tracing = startTracing(def.name);
  startService(def)
    .then((svc) => {
      const stop = () => {
        svc
          .close()
          .then(async () => (await tracing)?.())
          .then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((err) => {
      if (err instanceof ConfigError) process.stderr.write(`${def.name}: ${err.message}\n`);
      else process.stderr.write(`${def.name}: failed to start: ${err?.stack ?? err}\n`);
      process.exit(1);
    });
}
