import type { MikroORM } from '@mikro-orm/postgresql';
import { DeliverPolicy } from '@nats-io/jetstream';
import { parseEnvelope, sqlRows, tenantEm, type EventBus, type Logger } from '@ledgerline/service-kit';
import { organisationSubjects, splitTenantSubject, streamForSubject, STREAMS, type StreamName } from '@ledgerline/contracts';
import { applyLedgerEvent, LEDGER_SOURCES, type ApplyOptions } from './ledger-events.js';

export interface RebuildResult {
  orgId: number;
  /** Posted-document events of the organisation that were replayed. */
  events: number;
  /** Accounting transactions in the rebuilt ledger. */
  transactions: number;
}

/**
 * Rebuilds an organisation's ledger from the streams: in one database transaction, deletes the
 * organisation's derived ledger (transactions, rows, tax rows) and replays every posted-document
 * event of the organisation from the start of the SALES, PURCHASE and FINANCE streams (one
 * ordered, ephemeral consumer per stream, in stream order) through the same posting code as the
 * live consumers. Either the whole rebuilt ledger commits or the old one stays. Nothing is
 * emitted: integrations already saw these transactions.
 */
export async function rebuildLedger(orm: MikroORM, bus: EventBus, orgId: number, opts: ApplyOptions, log?: Logger): Promise<RebuildResult> {
  const typeBySubject = new Map(LEDGER_SOURCES.map((s) => [s.subject, s.type]));
  const streams = [...new Set(LEDGER_SOURCES.map((s) => streamForSubject(s.subject)))] as StreamName[];
  const em = tenantEm(orm, orgId);
  let events = 0;
  await em.transactional(async (tem) => {
    await sqlRows(tem, `select set_config('ledger.rebuild', 'on', true)`);
    await sqlRows(tem, 'delete from ledger_tax_rows where org_id = ?', [orgId]);
    await sqlRows(tem, 'delete from ledger_rows where org_id = ?', [orgId]);
    await sqlRows(tem, 'delete from accounting_transactions where org_id = ?', [orgId]);
    await sqlRows(tem, `select set_config('ledger.rebuild', 'off', true)`);

    for (const stream of streams) {
      const name = bus.streamName(stream);
      const info = await bus.jsm.streams.info(name).catch(() => null);
      if (!info || info.state.messages === 0) continue;
      // only this organisation's events: its id is every subject's last token
      const filter = bus.subject(organisationSubjects(STREAMS[stream].area, orgId));
      const consumer = await bus.js.consumers.get(name, { filter_subjects: filter, deliver_policy: DeliverPolicy.All });
      if ((await consumer.info()).num_pending === 0) continue;
      const messages = await consumer.consume({ max_messages: 500 });
      try {
        for await (const m of messages) {
          const routed = splitTenantSubject(bus.unprefixed(m.subject));
          const type = routed ? typeBySubject.get(routed.subject) : undefined;
          if (type) {
            let event;
            try {
              event = parseEnvelope(m.data);
            } catch {
              event = null;
            }
            if (event && event.orgid === String(orgId)) {
              events++;
              // a savepoint per event: one that cannot be posted (dead-lettered live) is skipped here too
              await tem
                .transactional(async (inner) => {
                  await applyLedgerEvent({ em: inner }, type, event, opts);
                })
                .catch((err) => log?.warn('rebuild: event skipped', { event_id: event.id, err: String(err) }));
            }
          }
          if (m.info.pending === 0) break;
        }
      } finally {
        await messages.close().catch(() => undefined);
      }
    }
  });
  const [{ count }] = (await em
    .getConnection()
    .execute('select count(*)::int as count from accounting_transactions where org_id = ?', [orgId], 'all')) as Array<{ count: number }>;
  return { orgId, events, transactions: count };
}
