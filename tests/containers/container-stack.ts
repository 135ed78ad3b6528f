import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';

/*
 * The whole system as containers, started through testcontainers: PostgreSQL, NATS and every
 * process from the images `npm run images` built. Containers share the host's network (the
 * machines' Docker runs without a bridge), each on ports of its own, away from the ones the
 * in-process tests and `npm start` use.
 */

// Ryuk, testcontainers' reaper, is an image from Docker Hub, which these machines cannot reach;
// the stack stops its own containers (and `docker rm -f` by the label finds any left behind).
process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
// the engine has no bridge network, whose gateway testcontainers would take as the host's
// address: the containers share the host's network, so they are on this machine's loopback
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';

const version = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }).version;
export const IMAGE_TAG = process.env.IMAGE_TAG ?? version;
export const CONTAINER_LABEL = 'ledgerline.test-stack';

export const PORTS = { postgres: 25432, nats: 24222, natsMonitor: 28222, gateway: 28080, sales: 28081, purchase: 28082, finance: 28083, accounting: 28084, settings: 28085 } as const;
const SERVICES = ['settings', 'sales', 'purchase', 'finance', 'accounting'] as const;

export interface ContainerStack {
  gatewayUrl: string;
  operatorToken: string;
  databaseUrl: string;
  natsUrl: string;
  containers: Record<string, StartedTestContainer>;
  stop: () => Promise<void>;
}

function container(image: string, name: string, env: Record<string, string>): GenericContainer {
  return new GenericContainer(image)
    .withNetworkMode('host')
    .withEnvironment(env)
    .withLabels({ [CONTAINER_LABEL]: name })
    .withWaitStrategy(Wait.forHealthCheck())
    .withStartupTimeout(120_000);
}

export async function startContainerStack(): Promise<ContainerStack> {
  const operatorToken = randomBytes(24).toString('hex');
  const databaseUrl = `postgres://postgres@127.0.0.1:${PORTS.postgres}/postgres`;
  const natsUrl = `nats://127.0.0.1:${PORTS.nats}`;
  const containers: Record<string, StartedTestContainer> = {};
  const stop = async () => {
    // the gateway first, the databases last: each process drains what it holds
    for (const name of ['gateway', ...SERVICES, 'nats', 'postgres']) await containers[name]?.stop({ timeout: 15_000 }).catch(() => undefined);
  };
  try {
    [containers.postgres, containers.nats] = await Promise.all([
      container('ledgerline/postgres:15', 'postgres', { PGPORT: String(PORTS.postgres) }).start(),
      container('ledgerline/nats:2.9', 'nats', { NATS_PORT: String(PORTS.nats), NATS_MONITOR_PORT: String(PORTS.natsMonitor) }).start(),
    ]);
    const common = {
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      INTERNAL_TOKEN: randomBytes(16).toString('hex'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
      OUTBOX_POLL_MS: '50',
    };
    // settings first: it makes the organisations' replicas the others read
    containers.settings = await container(`ledgerline/settings:${IMAGE_TAG}`, 'settings', { ...common, PORT: String(PORTS.settings) }).start();
    const others = await Promise.all(
      (['sales', 'purchase', 'finance', 'accounting'] as const).map((name) =>
        container(`ledgerline/${name}:${IMAGE_TAG}`, name, { ...common, PORT: String(PORTS[name]), ...(name === 'sales' ? { CHROMIUM_FALLBACK: 'none' } : {}) }).start(),
      ),
    );
    (['sales', 'purchase', 'finance', 'accounting'] as const).forEach((name, i) => (containers[name] = others[i]));
    containers.gateway = await container(`ledgerline/gateway:${IMAGE_TAG}`, 'gateway', {
      ...common,
      PORT: String(PORTS.gateway),
      OPERATOR_TOKEN: operatorToken,
      ...Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_URL`, `http://127.0.0.1:${PORTS[s]}`])),
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      AUTH_FAILURE_BURST: '100000',
      UPSTREAM_TIMEOUT_MS: '20000',
    }).start();
  } catch (err) {
    await stop();
    throw err;
  }
  return { gatewayUrl: `http://127.0.0.1:${PORTS.gateway}`, operatorToken, databaseUrl, natsUrl, containers, stop };
}
