import { WEBHOOK_SUBJECTS, subjectMatches } from '@ledgerline/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows, type ConsumerDefinition } from '@ledgerline/service-kit';

/**
 * Turns each event an organisation's endpoints subscribe to into one delivery per endpoint, in
 * the consumer's inbox transaction: the event is queued for every matching endpoint exactly once,
 * or (on a crash) redelivered and queued then. Only the event's own organisation's endpoints are
 * read, so no endpoint ever receives another organisation's event.
 */
export function webhookFanout(onCommitted: () => void): ConsumerDefinition[] {
  const subscribed = async (em: EntityManager, orgId: number, subject: string) => {
    const endpoints = await sqlRows<{ id: number | string; events: string[] }>(em, "select id, events from webhook_endpoints where org_id = ? and status = 'enabled'", [orgId], { prepared: true });
    return endpoints.filter((e) => e.events.some((p) => subjectMatches(p, subject)));
  };
  return WEBHOOK_SUBJECTS.map((subject) => ({
    name: `settings-webhooks-${subject.replace(/[._]/g, '-')}`,
    subject,
    // quick database work: the events handled at once share one commit
    concurrency: 16,
    sharedCommit: true,
    // the sender looks at once, after the deliveries are visible
    onCommitted,
    // most organisations subscribe to few subjects or none: those events need no transaction (a
    // delivery is unique per endpoint and event, so skipping the inbox loses no exactly-once)
    relevant: async (em, event) => event.orgid !== undefined && (await subscribed(em, Number(event.orgid), subject)).length > 0,
    handle: async (ctx, event) => {
      if (ctx.orgId === null) return;
      const matching = await subscribed(ctx.em, ctx.orgId, subject);
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
