import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { SUBJECTS } from '@ledgerline/contracts';
import { buildEnvelope, legalCurrencyOf, organisationReplica, sqlRows, type OrganisationReplica, type RunningService } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation, startTestService } from '../support/stack.js';
import { PROBE_SUBJECT, probeService } from './probe-service.js';

/*
 * The organisation replica every service but settings keeps: one kit table and one consumer of
 * settings.organisation.updated, switched on by `organisationReplica: true`.
 */
const env = isolation();
let svc: RunningService;
let nc: NatsConnection;

/** What a consumer declared `withOrganisation` was handed, by event id. */
const seen = new Map<string, OrganisationReplica | null | undefined>();
const replicaService = {
  ...probeService,
  name: 'replicaprobe',
  organisationReplica: true,
  consumers: () => [
    {
      name: 'replicaprobe-organisation-seen',
      subject: PROBE_SUBJECT,
      concurrency: 4,
      sharedCommit: true,
      withOrganisation: true,
      handle: async (ctx: { organisation?: OrganisationReplica | null }, event: { id: string }) => {
        seen.set(event.id, ctx.organisation);
      },
    },
  ],
};

/** Publishes a profile on organisation `subjectOrg`'s subject; the envelope names `orgId` (or none). */
async function publish(orgId: number | undefined, data: unknown, time: string, subjectOrg = orgId ?? (data as { id: number }).id): Promise<string> {
  const envelope = { ...buildEnvelope('settings', { subject: SUBJECTS.settingsOrganisationUpdated, orgId, data }), time };
  await jetstream(nc).publish(`${env.NATS_SUBJECT_PREFIX}${SUBJECTS.settingsOrganisationUpdated}.${subjectOrg}`, JSON.stringify(envelope), { msgID: envelope.id });
  return envelope.id;
}

const replica = (orgId: number) => organisationReplica({ em: svc.deps.orm.em.fork(), orgId: orgId });

/** Waits until the consumer has handled (applied, skipped or dead-lettered) the event. */
async function handled(eventId: string): Promise<void> {
  await eventually(async () => (await sqlRows(svc.deps.orm.em.fork(), 'select 1 from kit_inbox where event_id = ?', [eventId])).length === 1, 5000);
}

beforeAll(async () => {
  svc = await startTestService(replicaService, env);
  nc = await connect({ servers: env.NATS_URL });
});
afterAll(async () => {
  await svc?.close();
  await nc?.close();
  await dropIsolation(env);
});

describe('organisation replica', () => {
  it('keeps the whole profile, with country upper-cased and the figures services read typed', async () => {
    expect(await replica(41)).toBeNull();
    expect(await legalCurrencyOf({ em: svc.deps.orm.em.fork(), orgId: 41 })).toBe('CZK');
    await handled(await publish(41, { id: 41, name: 'Slovenská s.r.o.', country: 'sk', legal_currency: 'EUR', is_vat_payer: false, peppol_id: '0245:1234567890' }, '2026-11-01T10:00:00.000Z'));
    expect(await replica(41)).toMatchObject({
      orgId: 41,
      name: 'Slovenská s.r.o.',
      country: 'SK',
      legalCurrency: 'EUR',
      isVatPayer: false,
      profile: { peppol_id: '0245:1234567890', country: 'sk' },
    });
    expect(await legalCurrencyOf({ em: svc.deps.orm.em.fork(), orgId: 41 })).toBe('EUR');
  });

  it('the newest profile wins: an older event arriving late changes nothing', async () => {
    await handled(await publish(42, { id: 42, name: 'v2', country: 'CZ', legal_currency: 'CZK' }, '2026-11-02T10:00:00.000Z'));
    await handled(await publish(42, { id: 42, name: 'v1', country: 'CZ', legal_currency: 'EUR' }, '2026-11-01T10:00:00.000Z'));
    expect(await replica(42)).toMatchObject({ name: 'v2', legalCurrency: 'CZK' });
    await handled(await publish(42, { id: 42, name: 'v3', country: 'CZ', legal_currency: 'USD' }, '2026-11-03T10:00:00.000Z'));
    expect(await replica(42)).toMatchObject({ name: 'v3', legalCurrency: 'USD' });
  });

  it('takes the organisation from the subject when the envelope names none', async () => {
    await handled(await publish(undefined, { id: 43, country: 'BE', legal_currency: 'EUR' }, '2026-11-01T10:00:00.000Z'));
    expect(await replica(43)).toMatchObject({ country: 'BE', legalCurrency: 'EUR', isVatPayer: true, name: null });
  });

  it('dead-letters a profile it cannot use, with the reason, and writes nothing', async () => {
    const sub = nc.subscribe(`${env.NATS_SUBJECT_PREFIX}dlq.replicaprobe.${SUBJECTS.settingsOrganisationUpdated}.44`, { max: 1 });
    const got = (async () => {
      for await (const m of sub) return m;
    })();
    await publish(44, { id: 44, name: 'no currency', country: 'CZ', legal_currency: 'czk' }, '2026-11-01T10:00:00.000Z');
    const m = await Promise.race([got, new Promise((_, rej) => setTimeout(() => rej(new Error('no dead letter')), 5000))]);
    expect((m as { headers: { get(k: string): string } }).headers.get('x-dead-letter-reason')).toMatch(/not an organisation profile: legal_currency/);
    expect(await replica(44)).toBeNull();
  });

  it("dead-letters an event published on one organisation's subject that names another, and writes nothing", async () => {
    const sub = nc.subscribe(`${env.NATS_SUBJECT_PREFIX}dlq.replicaprobe.${SUBJECTS.settingsOrganisationUpdated}.46`, { max: 1 });
    const got = (async () => {
      for await (const m of sub) return m;
    })();
    // a client allowed to publish organisation 46's subjects speaks for organisation 45
    await publish(45, { id: 45, name: 'forged', country: 'CZ', legal_currency: 'EUR' }, '2026-11-01T10:00:00.000Z', 46);
    const m = await Promise.race([got, new Promise((_, rej) => setTimeout(() => rej(new Error('no dead letter')), 5000))]);
    expect((m as { headers: { get(k: string): string } }).headers.get('x-dead-letter-reason')).toMatch(/names organisation 45 but was published for organisation 46/);
    expect(await replica(45)).toBeNull();
    expect(await replica(46)).toBeNull();
  });
  it('a consumer declared withOrganisation is handed the replica row with its inbox claim, null for an organisation not replicated', async () => {
    await handled(await publish(44, { id: 44, name: 'Known a.s.', country: 'cz', legal_currency: 'EUR' }, '2026-11-01T10:00:00.000Z'));
    const note = async (orgId: number) => {
      const envelope = buildEnvelope('probe', { subject: PROBE_SUBJECT, orgId, resource: '1', data: { note_id: 1, text: 'hello' } });
      await jetstream(nc).publish(`${env.NATS_SUBJECT_PREFIX}${PROBE_SUBJECT}.${orgId}`, JSON.stringify(envelope), { msgID: envelope.id });
      return envelope.id;
    };
    const known = await note(44);
    const unknown = await note(99);
    // handled: the inbox claims committed (the handler is called inside the claim's transaction,
    // so what it was handed shows before its claim does)
    await handled(known);
    await handled(unknown);
    expect(seen.get(known)).toMatchObject({ orgId: 44, name: 'Known a.s.', country: 'CZ', legalCurrency: 'EUR', isVatPayer: true });
    expect(seen.get(known)?.sourceTime.toISOString()).toBe('2026-11-01T10:00:00.000Z');
    expect((await replica(44))?.sourceTime.toISOString()).toBe('2026-11-01T10:00:00.000Z');
    expect(seen.get(unknown)).toBeNull();
    // claimed once: a redelivered copy finds the inbox row and is not handed over again
    const [claims] = await sqlRows<{ n: number }>(svc.deps.orm.em.fork(), "select count(*)::int as n from kit_inbox where consumer = 'replicaprobe-organisation-seen'");
    expect(claims.n).toBe(2);
  });
});
