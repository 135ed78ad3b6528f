import { dec, roundMoney, toDb, type Dec } from '@ledgerline/service-kit';
import type { StoredJournalLine } from '../db/entities.js';
import { ACCOUNTS } from './posting-map.js';

/*
 * The arithmetic of a year-end revaluation (pure). Each open foreign-currency item — a receivable
 * on 311, a payable on 321, a bank balance on 221 — is valued again at the rate in force on the
 * day: new = round(amount × rate / units). The difference against the legal value the ledger holds
 * moves the item's account; an asset that grows (or a liability that shrinks) is a gain on 663, the
 * opposite a loss on 563. Gains and losses are posted apart, never netted.
 */

export type RevaluedKind = 'receivable' | 'payable' | 'bank';

export interface RevaluationItem {
  kind: RevaluedKind;
  /** What the line names: a document's number, a bank account. */
  label: string;
  currency: string;
  /** Open amount in the currency; booked legal value. Signed as the item's balance: a receivable's or bank's debit balance and a payable's credit balance are positive. */
  amount: string;
  booked: string;
  rate: { rate: string; amount: number };
}

export interface RevaluedItem extends RevaluationItem {
  account_number: string;
  revalued: string;
  /** revalued − booked: positive grows the balance. */
  difference: string;
  /** The difference as a gain (positive) or a loss (negative) of the organisation. */
  result: string;
}

const ACCOUNT: Record<RevaluedKind, string> = { receivable: ACCOUNTS.customers, payable: ACCOUNTS.vendors, bank: ACCOUNTS.bank };
/** Whether the item's balance sits on the debit side (an asset) or the credit side (a liability). */
const ASSET: Record<RevaluedKind, boolean> = { receivable: true, payable: false, bank: true };

export function revalue(item: RevaluationItem): RevaluedItem {
  const revalued = roundMoney(dec(item.amount).times(dec(item.rate.rate)).div(item.rate.amount));
  const difference = revalued.minus(dec(item.booked));
  const result = ASSET[item.kind] ? difference : difference.negated();
  return { ...item, account_number: ACCOUNT[item.kind], revalued: toDb(revalued), difference: toDb(difference), result: toDb(result) };
}

/**
 * The journal lines of a revaluation: one per item that moves (its account, on the side its
 * balance grows or shrinks), then the losses on 563 and the gains on 663, each summed.
 */
export function revaluationLines(items: readonly RevaluedItem[]): { lines: StoredJournalLine[]; total: Dec; gain: Dec; loss: Dec } {
  const lines: StoredJournalLine[] = [];
  let gain = dec(0);
  let loss = dec(0);
  for (const it of items) {
    const diff = dec(it.difference);
    if (diff.isZero()) continue;
    const result = dec(it.result);
    if (result.isPositive()) gain = gain.plus(result);
    else loss = loss.plus(result.negated());
    // an asset grows on the debit side, a liability on the credit side
    const debitSide = ASSET[it.kind] ? diff.isPositive() : diff.isNegative();
    const amount = toDb(diff.abs());
    const description = `${it.label}: ${it.currency} ${dec(it.amount).toFixed(2)} at ${dec(it.rate.rate).toFixed()}${it.rate.amount === 1 ? '' : `/${it.rate.amount}`} (booked ${dec(it.booked).toFixed(2)})`;
    lines.push({ order: lines.length + 1, account_number: it.account_number, debit: debitSide ? amount : '0.00', credit: debitSide ? '0.00' : amount, description: description.slice(0, 255) });
  }
  if (!loss.isZero()) lines.push({ order: lines.length + 1, account_number: ACCOUNTS.fxLosses, debit: toDb(loss), credit: '0.00', description: 'Exchange rate losses (revaluation)' });
  if (!gain.isZero()) lines.push({ order: lines.length + 1, account_number: ACCOUNTS.fxGains, debit: '0.00', credit: toDb(gain), description: 'Exchange rate gains (revaluation)' });
  const total = lines.reduce((s, l) => s.plus(dec(l.debit)), dec(0));
  return { lines, total, gain, loss };
}
