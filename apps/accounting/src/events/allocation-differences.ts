import { SUBJECTS, purchaseCreditAllocationEventSchema, salesCreditAllocationEventSchema, type CloudEvent } from '@ledgerline/contracts';
import { PoisonMessageError, dec, sqlRows, toDb, type ConsumerContext, type ConsumerDefinition, type TenantContext } from '@ledgerline/service-kit';
import type { StoredJournalLine } from '../db/entities.js';
import { postJournalEntry } from '../domain/journal-entries.js';
import { reversingLines } from '../domain/journal-lines.js';
import { ACCOUNTS } from '../domain/posting-map.js';
import type { ApplyOptions } from './ledger-events.js';

/*
 * The exchange difference of a set-off (decision 207). A credit applied to a document converted at
 * another rate settles each at its own legal value; the owner says what the difference is
 * (`exchange_difference` of the allocation), and the ledger posts it as a journal entry of kind
 * fx_settlement on the set-off date: the control account (311 for a customer's documents, 321 for a
 * vendor's) against 663 for a gain or 563 for a loss. Taking the allocation back reverses that
 * entry on the same day. The entry names the allocation in its reference, which makes a
 * redelivered event a no-op; a rebuild replays the journal entries as posted.
 */

const SIDES = [
  { subject: SUBJECTS.salesCreditAllocationRecorded, schema: salesCreditAllocationEventSchema, control: ACCOUNTS.customers, key: 'sales', credit: 'credit_note', target: 'invoice' },
  { subject: SUBJECTS.purchaseCreditAllocationRecorded, schema: purchaseCreditAllocationEventSchema, control: ACCOUNTS.vendors, key: 'purchase', credit: 'vendor_credit', target: 'bill' },
] as const;

/** The journal lines of a difference: the control account moves by it, the gain or loss takes the other side. */
export function allocationDifferenceLines(control: string, result: string, description: string): StoredJournalLine[] {
  const r = dec(result);
  const amount = toDb(r.abs());
  return r.isPositive()
    ? [
        { order: 1, account_number: control, debit: amount, credit: '0.00', description },
        { order: 2, account_number: ACCOUNTS.fxGains, debit: '0.00', credit: amount, description },
      ]
    : [
        { order: 1, account_number: ACCOUNTS.fxLosses, debit: amount, credit: '0.00', description },
        { order: 2, account_number: control, debit: '0.00', credit: amount, description },
      ];
}

async function applyAllocation(ctx: ConsumerContext, side: (typeof SIDES)[number], event: CloudEvent, opts: ApplyOptions): Promise<void> {
  if (ctx.orgId === null) return;
  const parsed = side.schema.safeParse(event.data);
  if (!parsed.success) throw new PoisonMessageError(`${event.type} ${event.id}: ${parsed.error.message}`);
  const allocation = parsed.data as unknown as {
    id: number;
    date: string;
    removed_at: string | null;
    exchange_difference?: { currency: string; result: number } | null;
  } & Record<string, { no: string }>;
  const fx = allocation.exchange_difference;
  if (!fx) return;
  const tenant = { ...ctx, orgId: ctx.orgId } as TenantContext;
  const reference = `${side.key}_credit_allocation:${allocation.id}`;
  const [posted] = await sqlRows<{ id: string; no: string; total: string; lines: StoredJournalLine[]; reversed_by_id: string | null }>(
    ctx.em,
    `select id, no, total::text as total, lines, reversed_by_id from journal_entries where org_id = ? and kind = 'fx_settlement' and reference = ? and reverses_id is null for update`,
    [ctx.orgId, reference],
  );
  if (allocation.removed_at === null) {
    if (posted) return;
    const what = `${allocation[side.credit].no} applied to ${allocation[side.target].no}`;
    const lines = allocationDifferenceLines(side.control, String(fx.result), `Exchange difference: ${what}`.slice(0, 255));
    await postJournalEntry(tenant, opts, {
      kind: 'fx_settlement',
      datePosting: allocation.date,
      description: `Exchange difference of the set-off ${what}`.slice(0, 255),
      reference,
      currency: fx.currency,
      lines,
      total: dec(lines[0].debit),
      reversesId: null,
    });
    return;
  }
  // taken back: the difference is reversed on the set-off's own day, once
  if (!posted || posted.reversed_by_id !== null) return;
  const reversal = await postJournalEntry(tenant, opts, {
    kind: 'fx_settlement',
    datePosting: allocation.date,
    description: `Reversal of ${posted.no}: the set-off was taken back`,
    reference,
    currency: fx.currency,
    lines: reversingLines(posted.lines),
    total: dec(posted.total),
    reversesId: Number(posted.id),
  });
  await sqlRows(ctx.em, 'update journal_entries set reversed_by_id = ? where org_id = ? and id = ?', [reversal.id, ctx.orgId, Number(posted.id)]);
}

export function allocationDifferenceConsumers(opts: ApplyOptions): ConsumerDefinition[] {
  return SIDES.map((side) => ({
    name: `accounting-${side.subject.replace(/[._]/g, '-')}`,
    subject: side.subject,
    handle: (ctx: ConsumerContext, event: CloudEvent) => applyAllocation(ctx, side, event, opts),
  }));
}
