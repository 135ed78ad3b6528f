import { Dec, dec, roundMoney } from '@ledgerline/service-kit';
import { ACCOUNTS, COUNTER_ACCOUNT_BY_PAID_RECORD, POSTING_MAP, type Figure, type PostingRule, type Side, type DocumentSourceType } from '../posting-map.js';
import type { SupplyKind } from '@ledgerline/core/tax-category';
import { type DraftRow, type Json, type LedgerEntryDraft, UnbalancedEntryError } from './entry.js';

/* The interpreter of the posting map: figures → balanced rows. */

// --- the interpreter of the posting map ---------------------------------------------------------

/** One amount of a figure, with the account it goes to when the figure picks it. */
export interface FigurePart {
  account?: string;
  /** What the amount paid for, where the rule's account depends on it (revenue from services: 602, not 604). */
  supply?: SupplyKind;
  amount: Dec;
  row?: Partial<Omit<DraftRow, 'debit' | 'credit' | 'gl_account_number' | 'role'>>;
}
export type FigureValues = Partial<Record<Figure, FigurePart[]>>;

export interface RowDefaults {
  currency: string | null;
  contact: Json | null;
  paid_record: Json | null;
  payment_reference: string | null;
  description: string | null;
}

export function flip(side: Side): Side {
  return side === 'debit' ? 'credit' : 'debit';
}

/**
 * Turns figures into rows by the posting map of `type`. Zero amounts are dropped (except the
 * `tax` row of a document with tax lines, which carries its ledger tax rows); a negative amount
 * goes to the other side. Rows of the same rule and account are merged.
 */
export function postingRows(type: DocumentSourceType, figures: FigureValues, defaults: RowDefaults, keepZero: ReadonlySet<string> = new Set()): DraftRow[] {
  const rows: DraftRow[] = [];
  for (const rule of POSTING_MAP[type]) {
    for (const part of figures[rule.figure] ?? []) {
      const account = accountFor(rule, part);
      const amount = roundMoney(part.amount);
      if (amount.isZero() && !keepZero.has(rule.role)) continue;
      const side = amount.isNegative() ? flip(rule.side) : rule.side;
      const abs = amount.abs();
      const mergeable = !part.row;
      const existing = mergeable ? rows.find((r) => r.role === rule.role && r.gl_account_number === account && !r.paid_record && (side === 'debit' ? r.credit.isZero() : r.debit.isZero())) : undefined;
      if (existing) {
        if (side === 'debit') existing.debit = existing.debit.plus(abs);
        else existing.credit = existing.credit.plus(abs);
        continue;
      }
      rows.push({
        role: rule.role,
        gl_account_number: account,
        debit: side === 'debit' ? abs : dec(0),
        credit: side === 'credit' ? abs : dec(0),
        description: defaults.description,
        currency: defaults.currency,
        payment_amount: null,
        payment_reference: defaults.payment_reference,
        contact: defaults.contact,
        paid_record: defaults.paid_record,
        tax_deduction_ratio: null,
        net_deduction_ratio: null,
        taxes: [],
        ...part.row,
      });
    }
  }
  return rows;
}

export function accountFor(rule: PostingRule, part: FigurePart): string {
  switch (rule.account.kind) {
    case 'fixed':
      return rule.account.number;
    case 'item_or':
      return part.account ?? (part.supply === 'services' && rule.account.services ? rule.account.services : rule.account.number);
    case 'counter':
      return part.account ?? ACCOUNTS.suspense;
  }
}

/**
 * The document a payment paid, as the ledger records it: none when finance could not match it
 * (`match_status: unmatched` — the paid record named a document the organisation does not have,
 * or one in another currency), since no document was paid and the money waits in suspense.
 */
export function paidDocument<P>(payment: { paid_record?: P | null; match_status?: string | null }): P | null {
  return payment.match_status === 'unmatched' ? null : (payment.paid_record ?? null);
}

/** Counter account of a payment: the paid document's type, else the named gl_account, else 395. */
export function counterAccount(paidRecord: { type?: string | null } | null | undefined, glAccount: { number?: string | null } | null | undefined): string {
  const byType = paidRecord?.type ? COUNTER_ACCOUNT_BY_PAID_RECORD[paidRecord.type] : undefined;
  return byType ?? (glAccount?.number?.trim() || ACCOUNTS.suspense);
}

export function sums(rows: Array<{ debit: Dec; credit: Dec }>): { debit: Dec; credit: Dec } {
  return rows.reduce((s, r) => ({ debit: s.debit.plus(r.debit), credit: s.credit.plus(r.credit) }), { debit: dec(0), credit: dec(0) });
}

export function assertBalanced(entry: LedgerEntryDraft): void {
  const { debit, credit } = sums(entry.rows);
  if (!debit.eq(credit)) throw new UnbalancedEntryError(debit, credit, `${entry.type} ${entry.source.id} (version ${entry.source.version})`);
}
