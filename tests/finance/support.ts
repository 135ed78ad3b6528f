import { connect, type NatsConnection } from '@nats-io/transport-node';
import { splitTenantSubject } from '@ledgerline/contracts';
import { NATS_URL, type Stack } from '../support/stack.js';

export interface SeenEvent {
  /** The catalogue subject (`finance.payment.matched`). */
  subject: string;
  /** The subject it was published on, without the prefix: the catalogue subject and the organisation (`finance.payment.matched.42`). */
  published: string;
  envelope: { id: string; orgid?: string; type: string; data: any };
  raw: string;
}

/** Listens to everything the stack publishes under its prefix (core NATS sees JetStream publishes too). */
export async function watchBus(stack: Stack, areas: string[]): Promise<{ nc: NatsConnection; seen: SeenEvent[] }> {
  const nc = await connect({ servers: NATS_URL });
  const prefix = stack.env.NATS_SUBJECT_PREFIX;
  const seen: SeenEvent[] = [];
  for (const area of areas) {
    const sub = nc.subscribe(`${prefix}${area}.>`);
    (async () => {
      for await (const m of sub) {
        const published = m.subject.slice(prefix.length);
        seen.push({ subject: splitTenantSubject(published)?.subject ?? published, published, envelope: JSON.parse(m.string()), raw: m.string() });
      }
    })();
  }
  await nc.flush();
  return { nc, seen };
}

/** A second organisation with its own admin key (operator endpoint). */
export async function secondOrganisation(stack: Stack, name = 'Other org', legal = { country: 'CZ', currency: 'CZK' }): Promise<{ orgId: number; key: string }> {
  const res = await stack.api('/v1/admin/organisations', {
    method: 'POST',
    key: stack.operatorToken,
    json: { name, country: legal.country, legal_currency: legal.currency },
  });
  if (res.status !== 200) throw new Error(`cannot create organisation: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { organisation: { id: number }; admin_key: { key: string } };
  return { orgId: body.organisation.id, key: body.admin_key.key };
}
