import { afterAll, describe, expect, it } from 'vitest';
import { EventBus, baseConfigSchema, createLogger, loadConfig } from '@ledgerline/service-kit';
import { dropIsolation, isolation } from '../support/stack.js';

/* Streams are created with the configured replicas and limits, and brought to them at boot. */
const env = isolation();
const log = createLogger('test', 'error');
const buses: EventBus[] = [];
afterAll(async () => {
  for (const b of buses) await b.close();
  await dropIsolation(env);
});

async function busWith(settings: Record<string, string>): Promise<EventBus> {
  const bus = await EventBus.connect(loadConfig(baseConfigSchema, { ...env, ...settings }), 'stream-settings-test', log);
  buses.push(bus);
  return bus;
}

describe('stream settings', () => {
  it('keeps events forever by default, takes max_age and max_bytes from the configuration, and updates an existing stream to them', async () => {
    const fresh = await busWith({});
    const name = await fresh.ensureStream('SALES');
    expect((await fresh.jsm.streams.info(name)).config).toMatchObject({ max_age: 0, max_bytes: -1, num_replicas: 1 });

    const limited = await busWith({ NATS_STREAM_MAX_AGE: '400d', NATS_STREAM_MAX_BYTES: String(512 * 1024 * 1024) });
    await limited.ensureStream('SALES');
    expect((await limited.jsm.streams.info(name)).config).toMatchObject({ max_age: 400 * 86_400 * 1e9, max_bytes: 512 * 1024 * 1024 });
  });

  it('asks for the configured replicas: a single server refuses more than one, which stops the boot naming why', async () => {
    const bus = await busWith({ NATS_STREAM_REPLICAS: '3' });
    await expect(bus.ensureStream('PURCHASE')).rejects.toThrow(/replicas > 1 not supported in non-clustered mode/);
  });
});
