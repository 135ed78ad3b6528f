import { createHash } from 'node:crypto';
import { MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import type { EntitySchema, EventSubscriber, MigrationObject, TransactionEventArgs } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';
import { endSpan, statementSpan } from '../tracing.js';
import { kitMigrations } from './migrations.js';
import { withoutOrmAsyncContext } from './async-context.js';
import { markDatabaseError } from './connection-loss.js';
import { databaseHosts, hostsToTry, rememberWritable, singleHostUrl, standbyError, takesWrites, withDatabase } from './database-url.js';
import { connectWritable } from './connect-writable.js';
import { applyLiveSql, type LiveSql } from './live-sql.js';

export const TENANT_FILTER = 'tenant';

// bigint ids fit in a JS number (< 2^53); numeric amounts stay strings for the decimal library.
pg.types.setTypeParser(20, (v: string) => Number.parseInt(v, 10));

export interface OrmOptions {
  databaseUrl: string;
  databaseName: string;
  entities: EntitySchema<any, any>[];
  migrations: MigrationObject[];
  debug?: boolean;
  poolMax?: number;
  log?: (msg: string) => void;
  /** Ends sessions left idle inside a transaction this long (`idle_in_transaction_session_timeout`); 0 or absent: the server's setting. */
  idleInTransactionTimeoutMs?: number;
  /** Cancels statements running this long (`statement_timeout`), migrations excepted; 0 or absent: the server's setting. */
  statementTimeoutMs?: number;
  /** Database functions and triggers kept as files, applied after the migrations when their text changed (decision 233). */
  liveSql?: readonly LiveSql[];
  /** What the query builder warns of (a pooled connection that died: `Connection Error: …`); its own console lines without it. */
  warn?: (msg: string) => void;
}

/**
 * Detaches a finished transaction's event listeners (decision 127).
 *
 * A knex transaction re-emits its client's query events through listeners it attaches to its
 * own client and lists on itself. While they stay attached, V8 kept every finished transaction's
 * graph (the transaction, its queries' parameters and rows, the batch or request that ran it)
 * alive through young-generation collections, until a full collection: 17-24 % of the garbage of
 * a write was promoted, and the old generation filled every second or two. Once the transaction
 * has ended nothing listens to them; detached, the same work promotes 0.1 %.
 */
function detachTransactionListeners(trx: unknown): void {
  const t = trx as { client?: { removeAllListeners?: () => unknown }; _internalListeners?: unknown };
  t.client?.removeAllListeners?.();
  if (Array.isArray(t._internalListeners)) t._internalListeners.length = 0;
}

/** Every root transaction's listeners detached once it committed or rolled back. */
const transactionListenerRelease: EventSubscriber = {
  afterTransactionCommit: (args: TransactionEventArgs) => detachTransactionListeners(args.transaction),
  afterTransactionRollback: (args: TransactionEventArgs) => detachTransactionListeners(args.transaction),
};

/** Creates the service's own database when it does not exist yet (first boot, new test run). */
export async function ensureDatabase(databaseUrl: string, databaseName: string): Promise<void> {
  const client = await connectWritable(databaseUrl);
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [databaseName]);
    if (found.rowCount === 0) {
      await client.query(`create database "${databaseName.replace(/"/g, '')}"`).catch((e: { code?: string }) => {
        if (e.code !== '42P04' && e.code !== '23505') throw e; // created concurrently by another process
      });
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(databaseUrl: string, databaseName: string): Promise<void> {
  const client = await connectWritable(databaseUrl);
  try {
    await client.query(`drop database if exists "${databaseName.replace(/"/g, '')}" with (force)`);
  } finally {
    await client.end();
  }
}

/**
 * Boots MikroORM on the service's database: creates it if missing, applies the kit's and the
 * service's migrations, and registers the `tenant` filter on every entity with an `orgId`
 * property. The filter is on by default and needs its `orgId` argument, so a query that forgot
 * the tenant fails instead of reading another organisation's rows.
 */
/**
 * The server settings every pooled session starts with (`-c name=value`). `DateStyle` is always
 * ISO: the ORM's connections hand a `date` over as the server's text, which every read takes to
 * be `YYYY-MM-DD`, and a server or database configured with another style (`SQL, DMY` writes
 * 27/11/2026) must not change what a document's day reads as. JIT compilation is off: the
 * services' statements are short, and the long ones are the reports' aggregates, where compiling
 * cost more than it saved (a balance sheet over ten million ledger rows: 1.14 s with it, 0.86 s
 * without, issue 59).
 */
function sessionOptions(opts: OrmOptions): { options: string } {
  const settings: Array<[string, string]> = [
    ['DateStyle', 'ISO'],
    ['jit', 'off'],
  ];
  for (const [name, ms] of [
    ['idle_in_transaction_session_timeout', opts.idleInTransactionTimeoutMs],
    ['statement_timeout', opts.statementTimeoutMs],
  ] as const) {
    if (ms) settings.push([name, String(Math.floor(ms))]);
  }
  return { options: settings.map(([name, value]) => `-c ${name}=${value}`).join(' ') };
}

export async function initOrm(opts: OrmOptions): Promise<MikroORM> {
  withoutOrmAsyncContext();
  await ensureDatabase(opts.databaseUrl, opts.databaseName);
  const tenantEntities = opts.entities
    .filter((e) => Object.prototype.hasOwnProperty.call(e.meta.properties, 'orgId'))
    .map((e) => e.meta.className);
  const config: Options = {
    // the ORM reads one host; the pool picks among several as it opens each connection (openConnections)
    // (the one that took writes just now, in ensureDatabase, for the ORM's own first connection)
    clientUrl: singleHostUrl(withDatabase(opts.databaseUrl, opts.databaseName), hostsToTry(opts.databaseUrl)[0]),
    entities: opts.entities,
    discovery: { warnWhenNoEntities: false },
    debug: opts.debug ?? false,
    logger: (msg: string) => opts.log?.(msg),
    allowGlobalContext: false,
    forceUtcTimezone: true,
    pool: {
      min: 1,
      max: opts.poolMax ?? 10,
      // A socket error of a pooled connection (ECONNRESET, …) reaches the statements it fails as
      // the socket's own error, which says nothing of being the database's; the driver emits it
      // on the connection before any of them sees it, so it is marked there (decision 142).
      afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
        conn.on('error', (err) => markDatabaseError(err));
        done(null, conn);
      },
    },
    driverOptions: {
      // every pooled session: a stalled holder of a transaction is ended by the server, and a
      // server gone silent (a cut network) is noticed by TCP keepalives rather than never
      connection: {
        keepAlive: true,
        ...sessionOptions(opts),
      },
      // the query builder writes its warnings to the console, outside the service's JSON log lines
      ...(opts.warn ? { log: { warn: (m: unknown) => opts.warn!(String(m)), error: (m: unknown) => opts.warn!(String(m)), deprecate: () => undefined, debug: () => undefined } } : {}),
    },
    extensions: [Migrator],
    subscribers: [transactionListenerRelease],
    migrations: {
      migrationsList: [...kitMigrations, ...opts.migrations],
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      tableName: 'kit_migrations',
      silent: true,
    },
    filters: {
      [TENANT_FILTER]: {
        name: TENANT_FILTER,
        cond: (args: { orgId?: number }) => {
          if (args?.orgId === undefined) throw new Error('tenant filter used without an organisation');
          return { orgId: args.orgId };
        },
        default: true,
        entity: tenantEntities,
      },
    },
  };
  const orm = await MikroORM.init(config);
  openConnections(orm, withDatabase(opts.databaseUrl, opts.databaseName));
  // Replicas of a service boot together against one database: one migrates, the others wait for
  // it (a session lock on a connection of its own) and then find nothing left to apply.
  const lock = await connectWritable(withDatabase(opts.databaseUrl, opts.databaseName));
  try {
    await lock.query(`select pg_advisory_lock(hashtext('kit-migrations'))`);
    // the migrator's own table, made here on a session without the pool's statement_timeout:
    // its first creation is DDL that may wait on catalog locks longer than a request may run
    await lock.query(
      `create table if not exists kit_migrations (id serial primary key, name varchar(255), executed_at timestamptz default current_timestamp)`,
    );
    await orm.getMigrator().up();
    const applied = await applyLiveSql(lock, opts.liveSql ?? []);
    if (applied.length) opts.log?.(`live SQL applied: ${applied.join(', ')}`);
    await compressWithLz4(orm);
  } finally {
    await lock.end(); // ending the session releases the lock
  }
  return orm;
}

/**
 * How the pool opens a connection. One it could not open (the server down, starting up, in
 * recovery, refusing) fails every statement waiting for it with the socket's or the server's own
 * error, whichever statement it was for (the ORM's, the query builder's, `sqlRows`): it is marked
 * as the database's where it is opened, so `connect ECONNREFUSED` is a lost database (503 with
 * Retry-After, a consumer's pause), not an unhandled error (issue 72). When the URL names several
 * servers, each is tried in turn and a standby skipped (database-url.ts): after a failover new
 * connections go to the promoted server.
 */
function openConnections(orm: MikroORM, url: string): void {
  const client = orm.em.getConnection().getKnex().client as unknown as {
    acquireRawConnection: () => Promise<pg.Client>;
    connectionSettings: { host?: string; port?: number };
  };
  const open = client.acquireRawConnection.bind(client);
  const hosts = databaseHosts(url);
  if (hosts.length < 2) {
    client.acquireRawConnection = () => open().catch((err: unknown) => Promise.reject(markDatabaseError(err)));
    return;
  }
  client.acquireRawConnection = async () => {
    let last: unknown;
    for (const host of hostsToTry(url)) {
      // read by the driver's constructor at once, before the next connection sets its own
      client.connectionSettings.host = host.host;
      client.connectionSettings.port = host.port;
      let conn: pg.Client | undefined;
      try {
        conn = await open();
        if (await takesWrites(conn)) {
          rememberWritable(url, host);
          return conn;
        }
        last = standbyError(host);
      } catch (err) {
        last = err;
      }
      await conn?.end().catch(() => undefined);
    }
    throw markDatabaseError(last);
  };
}

/*
 * Documents and events are stored as JSON of a few kilobytes, which Postgres compresses (TOAST)
 * on every insert. Its default, pglz, is several times slower than lz4 and was a large part of a
 * document write (decision 83), so every JSON and text column uses lz4 where the server has it.
 * Only columns not yet switched are altered (none after the first boot of a version).
 */
async function compressWithLz4(orm: MikroORM): Promise<void> {
  await orm.em.getConnection().execute(`do $$
    declare r record;
    begin
      if not exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) then return; end if;
      for r in
        select c.relname, a.attname from pg_attribute a
          join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
          and a.atttypid in ('jsonb'::regtype, 'json'::regtype, 'text'::regtype, 'bytea'::regtype) and a.attcompression <> 'l'
      loop
        execute format('alter table %I alter column %I set compression lz4', r.relname, r.attname);
      end loop;
    end $$`);
}

/**
 * Runs one SQL statement with bind parameters (`?` placeholders) in the entity manager's
 * transaction, if any, and returns its rows. Unlike `em.getConnection().execute()`, which inlines
 * every parameter into the query text as an escaped literal, the values travel as protocol
 * parameters: a large JSON document is neither escaped in JS nor parsed as SQL text.
 *
 * The statement goes to the driver's connection directly (the pool's, or the transaction's),
 * not through the query builder's runner, which cost more CPU than the driver itself on the
 * hot paths (decision 107). The placeholders follow the builder's rules: `\\?` is a literal `?`.
 */
export async function sqlRows<T extends pg.QueryResultRow = Record<string, unknown>>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  opts: { prepared?: boolean } = {},
): Promise<T[]> {
  const statement = positional(sql);
  if (statement.count !== params.length) throw new Error(`the statement has ${statement.count} placeholders but ${params.length} values were given`);
  if (params.includes(undefined)) throw new Error(`undefined bound to position ${params.indexOf(undefined) + 1} of a statement`);
  const trx = em.getTransactionContext<KnexTransaction>();
  const client = trx ? trx.client : (em.getConnection().getKnex().client as unknown as KnexClient);
  const conn = await client.acquireConnection().catch((err: unknown) => Promise.reject(markDatabaseError(err)));
  try {
    // a statement on a transaction that already ended would run outside it, on a pooled connection
    if (trx?.isCompleted()) throw await endedTransaction(trx);
    const span = statementSpan(statement.text, conn.database ?? 'postgres');
    try {
      const res = await conn.query<T>({
        text: statement.text,
        values: params as unknown[],
        // A named statement is parsed and planned once per connection, not on every execution:
        // for a hot statement with several CTEs the planning alone took longer than running it
        // (decision 83). Only for statements whose text is fixed (the server keeps each per connection).
        ...(opts.prepared ? { name: preparedName(sql) } : {}),
      });
      if (span) endSpan(span);
      // several statements in one text (no values) answer one result each: the last one's rows
      return Array.isArray(res) ? (res.at(-1) as pg.QueryResult<T>).rows : res.rows;
    } catch (err) {
      if (span) endSpan(span, err);
      throw err;
    }
  } finally {
    if (!trx) await client.releaseConnection(conn);
  }
}

/**
 * Why a statement cannot run in its transaction: the transaction failed (its BEGIN on a
 * connection the server had just ended reports only here, to the next statement), which is the
 * database's trouble and says so through its cause; or it was committed or rolled back before,
 * which is the caller's bug.
 */
async function endedTransaction(trx: KnexTransaction): Promise<Error> {
  const failure = await trx.executionPromise?.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (failure === undefined) return new Error('the transaction of this statement has already ended');
  return new Error(`the transaction of this statement failed: ${String(failure)}`, { cause: failure });
}

/**
 * What a statement refused on an ended transaction says about the database: the query builder
 * refuses it with a bare "Transaction query already complete" once the transaction's connection
 * failed, and that failure (a lost database: 503) is given as its cause; any other error, or a
 * transaction that ended normally (the caller's bug), is returned as it is.
 */
export async function explainEndedTransaction(err: unknown, em: EntityManager): Promise<unknown> {
  if (!(err instanceof Error) || !err.message.startsWith('Transaction query already complete')) return err;
  const trx = em.getTransactionContext<KnexTransaction>();
  if (!trx?.isCompleted?.()) return err;
  const explained = await endedTransaction(trx);
  return (explained as { cause?: unknown }).cause === undefined ? err : explained;
}

/** What `sqlRows` needs of the query builder's transaction and client: the connection they hold or lend. */
interface KnexClient {
  acquireConnection(): Promise<pg.Client & { database?: string }>;
  releaseConnection(conn: pg.Client): Promise<void>;
}
interface KnexTransaction {
  client: KnexClient;
  isCompleted(): boolean;
  /** Settles when the transaction ends: rejected with what failed it. */
  executionPromise?: Promise<unknown>;
}

/** A statement's `?` placeholders numbered for the driver (`$1`, `$2`, …), cached by its text. */
const positionalCache = new Map<string, { text: string; count: number }>();
export function positional(sql: string): { text: string; count: number } {
  let hit = positionalCache.get(sql);
  if (hit) return hit;
  let count = 0;
  // as the query builder reads them: a `?` after an odd run of backslashes is a literal `?`
  const text = sql.replace(/(\\*)\?/g, (_m, escapes: string) => {
    if (escapes.length % 2) return '?';
    count++;
    return `$${count}`;
  });
  hit = { text, count };
  if (positionalCache.size < 5000) positionalCache.set(sql, hit);
  return hit;
}

const preparedNames = new Map<string, string>();
function preparedName(sql: string): string {
  let name = preparedNames.get(sql);
  if (!name) {
    name = `ll_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    if (preparedNames.size < 1000) preparedNames.set(sql, name);
  }
  return name;
}

/** A fresh entity manager scoped to one organisation. */
export function tenantEm(orm: MikroORM, orgId: number): EntityManager {
  const em = orm.em.fork({ clear: true });
  em.setFilterParams(TENANT_FILTER, { orgId });
  return em;
}
