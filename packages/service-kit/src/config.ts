import { z } from 'zod';
import { databaseHosts } from './db/database-url.js';

const DURATION = /^\d+(ms|s|m|h|d)?$/;

/** A setting that is a duration (`400d`, `12h`, `90s`, `500ms`, plain seconds), read as milliseconds. */
export function durationSetting(defaultValue: string) {
  return z.string().trim().regex(DURATION, `a duration such as ${defaultValue}, 90s, 12h or 400d`).default(defaultValue).transform(durationMs);
}

/** A comma-separated list of durations (`5s,1m,5m`), read as milliseconds each. */
export function durationListSetting(defaultValue: string) {
  return z
    .string()
    .refine((t) => t.split(',').every((d) => DURATION.test(d.trim())), `comma-separated durations, e.g. ${defaultValue}`)
    .default(defaultValue)
    .transform((t) => t.split(',').map((d) => durationMs(d.trim())));
}

/** Settings every process reads. A service extends this schema with its own keys. */
/** A setting naming an IANA time zone (e.g. Europe/Prague), checked against what this Node knows. */
export const timeZoneSetting = (fallback: string) =>
  z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'an IANA time zone, e.g. Europe/Prague')
    .default(fallback);

/** `FAILURE_LOG_PER_SECOND`'s default: enough to see a failure's variety, not its volume. */
export const DEFAULT_FAILURE_LINES_PER_SECOND = 20;

export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  HOST: z.string().default('127.0.0.1'),
  /** One server, or several (`postgres://user@h1:5432,h2:5432/db`): the services use whichever takes writes (db/database-url.ts). */
  DATABASE_URL: z
    .string()
    .refine((u) => {
      const hosts = databaseHosts(u);
      return hosts.length > 0 && hosts.every((h) => h.host.length > 0 && Number.isInteger(h.port) && h.port > 0 && h.port < 65536);
    }, 'a postgres:// URL naming one server or several (host:port,host:port)')
    .default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Prefix of every database name this deployment creates (tests use a unique one per run). */
  DATABASE_PREFIX: z.string().regex(/^[a-z0-9_]*$/, 'lower-case letters, digits and _ only').default('ledgerline_'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9_-]+\.)*$/, 'empty, or tokens each followed by a dot, e.g. "test42."')
    .default(''),
  /**
   * NATS credentials; all unset connects without (a local development server). At most one kind:
   * user and password, a token, or a `.creds` file (JWT + NKey seed, for operator-mode servers).
   */
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_TOKEN: z.string().optional(),
  NATS_CREDS: z.string().optional(),
  /**
   * Prefix of this process's reply subjects. A server that gives each user its own
   * (`deploy/nats/nats-server.conf`: `_INBOX_<user>`) keeps one client from reading the replies
   * meant for another.
   */
  NATS_INBOX_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').optional(),
  /** Stream settings, applied when a stream is created and updated at boot when they differ. */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** How long a stream keeps events: `0` forever (the default: the streams are the ledger's replay log), or e.g. `400d`, `12h`. */
  NATS_STREAM_MAX_AGE: durationSetting('0'),
  /** Bytes a stream may hold before the oldest events are dropped; -1 unlimited. */
  NATS_STREAM_MAX_BYTES: z.coerce.number().int().min(-1).default(-1),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  /** The largest file an attachment upload (multipart/form-data) may carry; its request may be this plus 64 KiB of form. */
  ATTACHMENT_MAX_BYTES: z.coerce.number().int().positive().max(1024 * 1024 * 1024).default(10 * 1024 * 1024),
  /**
   * How long a client has to send a request's headers, and the whole request with its body; past
   * either, 408 and the connection closes (a slow or silent client cannot hold a connection). The
   * time a handler takes to answer is not bounded by these.
   */
  CLIENT_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  CLIENT_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /**
   * How long a connection may wait idle for its next request. Node's 5 s closed connections a
   * client was just reusing (its own clock said 4 s, a busy moment later the server had closed:
   * "other side closed" on a GET); longer than the clients' and load balancers' usual idle bounds
   * (60 s), so the client ends an idle connection, not the server under its feet.
   */
  CLIENT_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(65_000),
  /**
   * A database session left idle inside a transaction this long is ended by Postgres, which rolls
   * the transaction back and releases its locks: a stalled process (frozen, cut off by the
   * network) cannot hold a numbering series or a document's lock. 0 leaves it to the server.
   */
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /**
   * A statement running this long is canceled by Postgres (its transaction rolled back, the
   * request answered 503): a runaway query cannot hold a connection and a core long after the
   * gateway has answered 504 (`UPSTREAM_TIMEOUT_MS`, 15 s). Migrations are not bounded. 0 leaves
   * it to the server.
   */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(30_000),
  /** Shared secret the gateway sends to services; when set, services refuse calls without it. */
  INTERNAL_TOKEN: z.string().min(16).optional(),
  OUTBOX_POLL_MS: z.coerce.number().int().positive().default(250),
  /**
   * How long the leading relay's database session may stay silent before Postgres ends it, and
   * with it the lock that makes it the leader, so another replica takes the outbox over from one
   * that froze (a stopped process keeps its socket, so the server never notices otherwise). At
   * least four idle looks (`OUTBOX_POLL_MS`); 0: a leader leads until its session ends.
   */
  OUTBOX_LEADER_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(30_000),
  CONSUMER_MAX_DELIVER: z.coerce.number().int().min(1).default(8),
  /**
   * How long the stream waits for a delivered event's acknowledgement before it delivers the event
   * again: after a consumer's process dies, what it held reaches the restarted process (or another
   * replica) this much later, so it bounds how long a crash delays, say, a document's ledger entry.
   * It must outlast the longest handling of one event: a handler waiting on a lost database keeps
   * its event (every pause of at most 5 s), and one that runs past it is handled again, which the
   * inbox absorbs. Applied to the durables at each start (decision 258).
   */
  CONSUMER_ACK_WAIT_MS: z.coerce.number().int().min(10_000).max(3_600_000).default(30_000),
  /** How long published outbox rows are kept (the stream holds the events). */
  OUTBOX_RETENTION: durationSetting('7d'),
  /** How long consumed event ids are kept against redelivery. */
  INBOX_RETENTION: durationSetting('30d'),
  /** How long audit records are kept (`0`: for ever, the default; e.g. `3650d` for ten years). */
  AUDIT_RETENTION: durationSetting('0'),
  /**
   * Early load shedding (decision 243): requests a service works on at once; the rest queue, and
   * a queued one is refused with 503 (Retry-After: 1, nothing done) once the queue stands — when
   * even the shortest wait over REQUEST_QUEUE_INTERVAL_MS passed REQUEST_QUEUE_TARGET_MS while as
   * many came as finished, and the service was not stalled at its usual load (decisions 269,
   * 270) — or after
   * REQUEST_QUEUE_MAX_WAIT_MS, or beyond REQUEST_QUEUE_LIMIT waiting. 0: every request is taken.
   * REQUEST_QUEUE_MAX_WAIT_MS is 2 s since decision 269: a stall of the database up to about that
   * long is waited out whole rather than answered with 503s.
   * 16 (decision 248): about the process's ten database connections and its one thread keep busy;
   * more at once only queue inside the process, where no deadline sees them. A request waiting on
   * a register, a bank or another service's answer (`ctx.outside`, `ctx.ask`) does not count.
   */
  MAX_CONCURRENT_REQUESTS: z.coerce.number().int().min(0).max(100_000).default(16),
  REQUEST_QUEUE_LIMIT: z.coerce.number().int().min(0).max(1_000_000).default(1024),
  REQUEST_QUEUE_TARGET_MS: z.coerce.number().int().min(1).max(60_000).default(50),
  REQUEST_QUEUE_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  REQUEST_QUEUE_MAX_WAIT_MS: z.coerce.number().int().min(1).max(600_000).default(2000),
  /** Share of requests written to the access log, 0–1 (services 0: the gateway's line covers a request). */
  ACCESS_LOG_SAMPLE: z.coerce.number().min(0).max(1).default(0),
  /** Log lines a second for each kind of failed request (5xx); the rest are counted in one line a second. 0: every one. */
  FAILURE_LOG_PER_SECOND: z.coerce.number().int().min(0).default(DEFAULT_FAILURE_LINES_PER_SECOND),
  /** How often the retention sweep runs; 0 never. */
  RETENTION_SWEEP_MS: z.coerce.number().int().min(0).default(600_000),
  /** Rows one delete statement of the sweep removes at most. */
  RETENTION_BATCH: z.coerce.number().int().min(1).max(100_000).default(1000),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/**
 * Rules between base settings, checked by `loadConfig` after the schema: a zod refinement on
 * `baseConfigSchema` would stop every service from extending it. Each answers the problem line
 * (`KEY: why`) or null.
 */
const BASE_CONFIG_RULES: Array<(c: Partial<BaseConfig>) => string | null> = [
  (c) =>
    (c.CLIENT_HEADERS_TIMEOUT_MS ?? 0) > (c.CLIENT_REQUEST_TIMEOUT_MS ?? Infinity)
      ? `CLIENT_HEADERS_TIMEOUT_MS: ${c.CLIENT_HEADERS_TIMEOUT_MS} is longer than CLIENT_REQUEST_TIMEOUT_MS (${c.CLIENT_REQUEST_TIMEOUT_MS}), which the headers are part of`
      : null,
];

/** `400d`, `12h`, `30m`, `90s`, `500ms`, or plain seconds, as milliseconds. */
export function durationMs(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new Error(`not a duration: ${text}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 's']!;
  return Number(m[1]) * unit;
}

export class ConfigError extends Error {}

/**
 * Reads the environment once through a zod schema. A wrong value throws a ConfigError listing
 * every bad key; `runService` turns that into a clear message and exit code 1.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  if (env.NATS_SUBJECT_PREFIX === '') cleaned.NATS_SUBJECT_PREFIX = '';
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const broken = BASE_CONFIG_RULES.map((rule) => rule(parsed.data as Partial<BaseConfig>)).filter((line) => line !== null);
  if (broken.length) throw new ConfigError(`Invalid configuration:\n${broken.map((line) => `  ${line}`).join('\n')}`);
  return parsed.data;
}

/** The body limit of an upload: the largest file and 64 KiB of form around it (never below the JSON limit). */
/** The admission gate's settings (`HttpAppOptions.admission`), or none when MAX_CONCURRENT_REQUESTS is 0. */
export function admissionOf(config: {
  MAX_CONCURRENT_REQUESTS: number;
  REQUEST_QUEUE_LIMIT: number;
  REQUEST_QUEUE_TARGET_MS: number;
  REQUEST_QUEUE_INTERVAL_MS: number;
  REQUEST_QUEUE_MAX_WAIT_MS: number;
}): { maxConcurrent: number; maxQueue: number; targetMs: number; intervalMs: number; maxWaitMs: number } | undefined {
  if (config.MAX_CONCURRENT_REQUESTS === 0) return undefined;
  return {
    maxConcurrent: config.MAX_CONCURRENT_REQUESTS,
    maxQueue: config.REQUEST_QUEUE_LIMIT,
    targetMs: config.REQUEST_QUEUE_TARGET_MS,
    intervalMs: config.REQUEST_QUEUE_INTERVAL_MS,
    maxWaitMs: config.REQUEST_QUEUE_MAX_WAIT_MS,
  };
}

export function uploadLimitOf(config: { BODY_LIMIT_BYTES: number; ATTACHMENT_MAX_BYTES: number }): number {
  return Math.max(config.BODY_LIMIT_BYTES, config.ATTACHMENT_MAX_BYTES + 64 * 1024);
}
