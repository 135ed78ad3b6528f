import type { PaidRecordType } from '@ledgerline/contracts/common';
import { dec, sqlRows, type Dec, type TenantContext } from '@ledgerline/service-kit';
import { PAID_BY_MONEY_IN } from './legal-currency.js';

/** Nothing applied or cleared yet (and what documents that need no history are priced from). */
export const NOTHING_SETTLED: SettledSoFar = { applied: dec(0), clearedLeg: dec(0) };

/** What finance has applied to one document so far: the base of the next payment's settlement. */
export interface SettledSoFar {
  /** Σ amounts applied, in the document's currency (positive pays it). */
  applied: Dec;
  /** Σ legal values cleared, in the paying direction (positive clears it). */
  clearedLeg: Dec;
}

export interface PaidDocumentKey {
  type: PaidRecordType;
  id: number;
}

/**
 * Locks the paid documents until the transaction ends, in one order everywhere (no deadlocks), so
 * payments of one document are priced one after another, each seeing the ones before it.
 */
export async function lockPaidDocuments({ em, orgId }: TenantContext, docs: readonly PaidDocumentKey[]): Promise<void> {
  const keys = [...new Set(docs.map((d) => `paid:${orgId}:${d.type}:${d.id}`))].sort();
  for (const key of keys) await sqlRows(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}

/**
 * Reads what finance's own records (bank transactions and the current lines of payouts) have
 * applied to a document. Finance records every payment, so this is complete at once, unlike the
 * owner's amount_due, which follows the payment events. `excludePayoutId`: the payout being
 * replaced, whose current lines are about to be taken back.
 */
export async function settledSoFar({ em, orgId }: TenantContext, doc: PaidDocumentKey, excludePayoutId: number | null = null): Promise<SettledSoFar> {
  const [row] = await sqlRows<{ applied: string | null; settled: string | null }>(
    em,
    `select sum(applied) as applied, sum(settled) as settled from (
       select (match->>'amount')::numeric as applied, settlement_amount_leg as settled
         from bank_transactions
        where org_id = ? and match_status = 'matched' and match->>'type' = ? and (match->>'id')::bigint = ?
       union all
       select (l->'match'->>'amount')::numeric, (l->>'settlement_amount_leg')::numeric
         from payouts p cross join lateral jsonb_array_elements(p.lines) l
        where p.org_id = ? and p.id <> ? and p.lines @> ?::jsonb
          and l->>'match_status' = 'matched' and l->'match'->>'type' = ? and (l->'match'->>'id')::bigint = ?
     ) payments`,
    [orgId, doc.type, doc.id, orgId, excludePayoutId ?? -1, JSON.stringify([{ match: { type: doc.type, id: doc.id } }]), doc.type, doc.id],
  );
  const settled = dec(row?.settled ?? 0);
  return { applied: dec(row?.applied ?? 0), clearedLeg: PAID_BY_MONEY_IN[doc.type] ? settled : settled.negated() };
}
