import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_HEADERS, sqlRows, type RunningService } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation, startTestService } from '../support/stack.js';
import { probeService } from './probe-service.js';

/*
 * The retention sweep: sent outbox rows, inbox rows and Idempotency-Keys older than their
 * retention go, in batches; unsent outbox rows and recent rows stay; writes go on meanwhile.
 */
const env = isolation();
let svc: RunningService;
const ORG = 9;

const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(`${svc.url}${path}`, {
    ...init,
    headers: { [INTERNAL_HEADERS.orgId]: String(ORG), [INTERNAL_HEADERS.scopes]: 'admin', 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });
const count = async (sql: string) => (await sqlRows<{ n: number }>(svc.deps.orm.em.fork(), `select count(*)::int as n from ${sql}`))[0].n;

beforeAll(async () => {
  // sweeps only when asked; two rows per delete statement, so the batching loop runs
  svc = await startTestService({ ...probeService, name: 'retentionprobe' }, { ...env, RETENTION_SWEEP_MS: '0', RETENTION_BATCH: '2' });
});
afterAll(async () => {
  await svc?.close();
  await dropIsolation(env);
});

describe('retention sweep', () => {
  it('deletes old sent outbox rows, old inbox rows and expired Idempotency-Keys, and keeps the rest', async () => {
    for (let i = 0; i < 5; i++) expect((await call('/v1/notes', { method: 'POST', json: { text: `note ${i}` }, headers: { 'idempotency-key': `k-${i}` } })).status).toBe(200);
    await eventually(async () => (await count("kit_outbox where sent_at is null")) === 0 && (await count('kit_inbox')) === 5, 5000);
    expect(await count('kit_idempotency')).toBe(5);

    // an unsent row, however old, is never pruned
    await svc.relay.stop();
    expect((await call('/v1/notes', { method: 'POST', json: { text: 'unsent' } })).status).toBe(200);
    const em = svc.deps.orm.em.fork();
    await sqlRows(em, "update kit_outbox set created_at = now() - interval '90 days' where sent_at is null");
    // three of the five published rows and inbox rows, and four keys, are old
    await sqlRows(em, "update kit_outbox set sent_at = now() - interval '8 days' where id in (select id from kit_outbox where sent_at is not null order by id limit 3)");
    await sqlRows(em, "update kit_inbox set processed_at = now() - interval '31 days' where event_id in (select event_id from kit_inbox order by processed_at limit 3)");
    await sqlRows(em, "update kit_idempotency set created_at = now() - interval '25 hours' where idem_key in ('k-0', 'k-1', 'k-2', 'k-3')");

    expect(await svc.retention.pruneOnce()).toEqual({ kit_outbox: 3, kit_inbox: 3, kit_idempotency: 4 });
    expect(await count('kit_outbox')).toBe(3);
    expect(await count('kit_outbox where sent_at is null')).toBe(1);
    expect(await count('kit_inbox')).toBe(2);
    expect(await count('kit_idempotency')).toBe(1);
    // nothing more to do
    expect(await svc.retention.pruneOnce()).toEqual({ kit_outbox: 0, kit_inbox: 0, kit_idempotency: 0 });

    // the unsent row still leaves, and is consumed once
    svc.relay.start();
    await eventually(async () => (await count('kit_outbox where sent_at is null')) === 0 && (await count('kit_inbox')) === 3, 5000);
  });
});
