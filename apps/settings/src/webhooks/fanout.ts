import { WEBHOOK_SUBJECTS, subjectMatches } from '@ledgerline/contracts';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { batchedLookup, sqlRows, type ConsumerDefinition } from '@ledgerline/service-kit';
import type { FanoutDurables } from './durables.js';
import { disableEndpoint } from './endpoints.js';
import { areaOfSubject, ownerGoneReason, ownerMayReceive, ownerScopes } from './access.js';

interface Endpoint {
  id: number | string;
  events: string[];
}

interface QueuedEndpoint extends Endpoint {
  org_id: number | string;
  url: string;
  owner: string | null;
}

/**
 * Turns each event an organisation's endpoints subscribe to into one delivery per endpoint, in
 * the consumer's inbox transaction: the event is queued for every matching endpoint exactly once,
 * or (on a crash) redelivered and queued then. Only the event's own organisation's endpoints are
 * read, so no endpoint ever receives another organisation's event, and only those whose owner
 * may read the event's area (`access.ts`). A subject's consumer runs only while an enabled
 * endpoint selects it (`FanoutDurables`).
 */
export function webhookFanout(orm: MikroORM, durables: FanoutDurables, onCommitted: () => void): ConsumerDefinition[] {
  const subscribed = async (em: EntityManager, orgId: number, subject: string) => {
    const endpoints = await sqlRows<QueuedEndpoint>(em, "select id, org_id, url, events, owner from webhook_endpoints where org_id = ? and status = 'enabled'", [orgId], { prepared: true });
    return endpoints.filter((e) => e.events.some((p) => subjectMatches(p, subject)));
  };
  /**
   * The endpoints whose owner may read the event's area now (`access.ts`); an endpoint whose owner
   * is revoked or expired is disabled, in the same transaction, with the reason.
   */
  const entitled = async (em: EntityManager, orgId: number, subject: string, endpoints: QueuedEndpoint[]) => {
    const scopes = await ownerScopes({ em, orgId }, endpoints.map((e) => e.owner));
    const area = areaOfSubject(subject);
    const receiving: QueuedEndpoint[] = [];
    for (const e of endpoints) {
      const may = ownerMayReceive(e.owner, scopes, area);
      if (may === 'yes') receiving.push(e);
      else if (may === 'gone') await disableEndpoint(em, { id: Number(e.id), orgId, url: e.url }, ownerGoneReason(e.owner!));
    }
    return receiving;
  };
  // The relevance look of every consumer below: the organisations of the events arriving
  // together are looked up by one statement (two events per posted document, most of them of
  // organisations without endpoints).
  // one entity manager for every lookup: they run outside any transaction and hydrate nothing,
  // so a fork of its own per batch (a unit of work and its maps) bought nothing
  const lookups = orm.em.fork();
  const enabledEndpoints = batchedLookup<number, Endpoint[]>(async (orgIds) => {
    const rows = await sqlRows<Endpoint & { org_id: number }>(
      lookups,
      "select org_id, id, events from webhook_endpoints where org_id = any(?::bigint[]) and status = 'enabled'",
      [`{${orgIds.join(',')}}`],
      { prepared: true },
    );
    const byOrg = new Map<number, Endpoint[]>();
    for (const r of rows) byOrg.set(Number(r.org_id), [...(byOrg.get(Number(r.org_id)) ?? []), r]);
    return byOrg;
  }, []);
  return WEBHOOK_SUBJECTS.map((subject) => ({
    name: `settings-webhooks-${subject.replace(/[._]/g, '-')}`,
    subject,
    // quick database work: the events handled at once share one commit
    concurrency: 16,
    sharedCommit: true,
    onDemand: durables.switchOf(subject),
    // the sender looks at once, after the deliveries are visible
    onCommitted,
    // most organisations subscribe to few subjects or none: those events need no transaction (a
    // delivery is unique per endpoint and event, so skipping the inbox loses no exactly-once),
    // and are not even read
    relevantOrganisation: async (orgId) => (await enabledEndpoints(orgId)).some((e) => e.events.some((p) => subjectMatches(p, subject))),
    handle: async (ctx, event) => {
      if (ctx.orgId === null) return;
      const matching = await entitled(ctx.em, ctx.orgId, subject, await subscribed(ctx.em, ctx.orgId, subject));
      if (matching.length === 0) return;
      // the body every attempt sends and signs, fixed once
      const payload = JSON.stringify(event);
      await sqlRows(
        ctx.em,
        `insert into webhook_deliveries (org_id, endpoint_id, event_id, event_type, resource, payload, status, next_attempt_at)
         select ?, e.id, ?::uuid, ?, ?, ?, 'pending', now() from unnest(?::bigint[]) as e(id)
         on conflict (endpoint_id, event_id) do nothing`,
        [ctx.orgId, event.id, event.type, event.subject ?? null, payload, `{${matching.map((e) => e.id).join(',')}}`],
      );
    },
  }));
}
