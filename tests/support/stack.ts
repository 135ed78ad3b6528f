import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { RunningService, ServiceDefinition } from '@ledgerline/service-kit';
import type { RunningGateway } from '../../apps/gateway/src/gateway.js';
import { cloneServiceDatabase } from './database-templates.js';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/*
 * The services and the gateway are imported when a stack starts them, not with this module: a
 * file that starts two services does not evaluate the other three, and the containers stage,
 * which starts none in-process, none at all (a service's modules take seconds to evaluate).
 */
const DEFINITIONS = {
  settings: async () => (await import('../../apps/settings/src/service.js')).settingsService,
  sales: async () => (await import('../../apps/sales/src/service.js')).salesService,
  purchase: async () => (await import('../../apps/purchase/src/service.js')).purchaseService,
  finance: async () => (await import('../../apps/finance/src/service.js')).financeService,
  accounting: async () => (await import('../../apps/accounting/src/service.js')).accountingService,
} as const;
const kit = () => import('@ledgerline/service-kit');
export type ServiceKey = keyof typeof DEFINITIONS;

/** Names unique to this test run and this stack: database prefix and NATS subject prefix. */
export function isolation() {
  const runId = inject('runId');
  const tag = randomBytes(3).toString('hex');
  return {
    DATABASE_URL,
    NATS_URL,
    DATABASE_PREFIX: `lt_${runId}_${tag}_`,
    NATS_SUBJECT_PREFIX: `lt${runId}${tag}.`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    OUTBOX_POLL_MS: '50',
  };
}

export type TestEnv = ReturnType<typeof isolation> & Record<string, string>;

export async function startTestService<S extends ServiceDefinition<any, any>>(def: S, env: Record<string, string>) {
  await cloneDatabaseOf(def, env);
  return (await kit()).startService(def, { ...env, PORT: '0', HOST: '127.0.0.1' });
}

/**
 * The database of one of the platform's services, cloned from the run's migrated template when it
 * is on the run's own server (a test's own server, or a test's own service definition, is migrated
 * as it boots; database-templates.ts).
 */
async function cloneDatabaseOf(def: ServiceDefinition<any, any>, env: Record<string, string | undefined>): Promise<void> {
  // TEST_DATABASE_TEMPLATES=off: every stack migrates its own databases (what the templates save is measured so)
  if (process.env.TEST_DATABASE_TEMPLATES === 'off') return;
  if (env.DATABASE_URL !== DATABASE_URL || env.DATABASE_PREFIX === undefined) return;
  const own = (DEFINITIONS as Record<string, () => Promise<unknown>>)[def.name];
  if (!own || (await own()) !== def) return;
  await cloneServiceDatabase(DATABASE_URL, def, `${env.DATABASE_PREFIX}${def.name}`);
}

/** A response whose JSON body tests read field by field (the platform's own types are `unknown`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface Stack {
  env: TestEnv;
  gateway: RunningGateway;
  services: Partial<Record<ServiceKey, RunningService<any>>>;
  adminKey: string;
  operatorToken: string;
  /** fetch against the gateway with the admin key unless `key` (or `key: null`) says otherwise. */
  api: (path: string, init?: RequestInit & { key?: string | null; json?: unknown }) => Promise<ApiResponse>;
  stopService: (name: ServiceKey) => Promise<void>;
  restartService: (name: ServiceKey) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * The whole system in-process on ephemeral ports: the chosen services (settings always) and the
 * gateway in front of them, on their own databases and subject prefix.
 */
export async function startStack(opts: { services?: ServiceKey[]; env?: Record<string, string> } = {}): Promise<Stack> {
  const containers = inject('containerStack');
  if (containers) return containerStack(containers);
  const { generateSecret, startService } = await kit();
  const { startGateway } = await import('../../apps/gateway/src/gateway.js');
  const adminKey = generateSecret('ak');
  const operatorToken = randomBytes(24).toString('hex');
  const env: TestEnv = {
    ...isolation(),
    BOOTSTRAP_API_KEY: adminKey,
    OPERATOR_TOKEN: operatorToken,
    INTERNAL_TOKEN: randomBytes(16).toString('hex'),
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    AUTH_FAILURE_BURST: '100000',
    ...opts.env,
  };
  const wanted = new Set<ServiceKey>(['settings', ...(opts.services ?? [])]);
  const services: Partial<Record<ServiceKey, RunningService<any>>> = {};
  const ports: Partial<Record<ServiceKey, number>> = {};
  const start = async (name: ServiceKey) => {
    const port = ports[name] ?? 0;
    const def = (await DEFINITIONS[name]()) as ServiceDefinition<any, any>;
    await cloneDatabaseOf(def, env);
    services[name] = await startService(def, { ...env, PORT: String(port), HOST: '127.0.0.1' });
    ports[name] = services[name]!.port;
  };
  await start('settings');
  await Promise.all([...wanted].filter((n) => n !== 'settings').map(start));
  const urlOf = (name: ServiceKey) => services[name]?.url ?? env[`${name.toUpperCase()}_URL`] ?? 'http://127.0.0.1:1';
  const gateway = await startGateway({
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    SETTINGS_URL: urlOf('settings'),
    SALES_URL: urlOf('sales'),
    PURCHASE_URL: urlOf('purchase'),
    FINANCE_URL: urlOf('finance'),
    ACCOUNTING_URL: urlOf('accounting'),
    // generous: a test asserts what is answered, not how fast (PDFs print one after another on a slow machine)
    UPSTREAM_TIMEOUT_MS: env.UPSTREAM_TIMEOUT_MS ?? '20000',
  });

  const api = gatewayApi(gateway.url, adminKey);

  return {
    env,
    gateway,
    services,
    adminKey,
    operatorToken,
    api,
    stopService: async (name) => {
      await services[name]?.close();
      delete services[name];
    },
    restartService: async (name) => {
      await services[name]?.close();
      await start(name);
    },
    close: async () => {
      await gateway.close();
      for (const s of Object.values(services)) await s?.close();
      await dropIsolation(env);
    },
  };
}

/** fetch against a gateway with `adminKey` unless `key` (or `key: null`) says otherwise; `json` is sent as the body. */
function gatewayApi(gatewayUrl: string, adminKey: string): Stack['api'] {
  return (path, init = {}) => {
    const headers = new Headers(init.headers);
    const key = init.key === undefined ? adminKey : init.key;
    if (key && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    return fetch(`${gatewayUrl}${path}`, { ...init, headers, body });
  };
}

/**
 * The system the containers stage runs (`npm run test:containers`): the images' processes behind
 * the gateway container. A test gets an organisation of its own, made like the in-process stack's
 * first one, and reaches it only through the gateway, as a user does.
 */
async function containerStack(containers: NonNullable<ReturnType<typeof inject<'containerStack'>>>): Promise<Stack> {
  const res = await fetch(`${containers.gatewayUrl}/v1/admin/organisations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${containers.operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'My organisation', country: 'CZ', legal_currency: 'CZK' }),
  });
  if (res.status !== 200) throw new Error(`the gateway container did not make an organisation: ${res.status} ${await res.text()}`);
  const adminKey = ((await res.json()) as { admin_key: { key: string } }).admin_key.key;
  const api = gatewayApi(containers.gatewayUrl, adminKey);
  const inProcessOnly = async () => {
    throw new Error('the containers stage runs the images as they are: no service is stopped or restarted from a test');
  };
  return {
    // the containers run with no database or subject prefix of their own
    env: { ...isolation(), DATABASE_URL: containers.databaseUrl, NATS_URL: containers.natsUrl, DATABASE_PREFIX: '', NATS_SUBJECT_PREFIX: '' },
    gateway: { url: containers.gatewayUrl } as RunningGateway,
    services: {},
    adminKey,
    operatorToken: containers.operatorToken,
    api,
    stopService: inProcessOnly,
    restartService: inProcessOnly,
    close: async () => undefined,
  };
}

/** Removes the databases and streams of one isolation scope. */
export async function dropIsolation(env: { DATABASE_PREFIX: string; NATS_SUBJECT_PREFIX: string }) {
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  const dbs = await c.query('select datname from pg_database where datname like $1', [`${env.DATABASE_PREFIX.replace(/_/g, '\\_')}%`]);
  for (const row of dbs.rows) await c.query(`drop database if exists "${row.datname}" with (force)`).catch(() => undefined);
  await c.end();
  const n = await connect({ servers: NATS_URL });
  const jsm = await jetstreamManager(n);
  const streamPrefix = env.NATS_SUBJECT_PREFIX.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase();
  for await (const s of jsm.streams.list()) {
    if (s.config.name.startsWith(streamPrefix)) await jsm.streams.delete(s.config.name).catch(() => undefined);
  }
  await n.close();
}

/** Polls until `check` returns a truthy value or the time is up (for eventually consistent reads). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 5000, stepMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}
