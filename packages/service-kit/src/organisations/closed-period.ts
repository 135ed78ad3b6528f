import type { TenantScope } from '../context.js';
import { ConflictError } from '../errors.js';
import { sqlRows } from '../db/orm.js';
import { FALLBACK_LEGAL_CURRENCY } from './replica.js';

/**
 * An organisation closes its books through a day: `lock_date` of its profile (decision 156). Once
 * a VAT return or the year's accounts are filed, nothing may be posted, moved or taken back on or
 * before that day: every write that would make the ledger post into the closed period is refused
 * with 409 `period_locked` and changes nothing. The lock date reaches each service with the
 * organisation replica (`settings.organisation.updated`), like the legal currency.
 */

/** The day a write is posted on, and the request field it comes from (for the problem's `errors[]`). */
export interface PostedOn {
  field: string;
  date: string;
}

/**
 * The posting days, one rule for the services that refuse writes and for the ledger that posts
 * them: a document on its taxable date, else its issue date; a bank transaction on its accounting
 * date, else its transaction date; a payout on its issue date, else its lines' latest date, else
 * the day it is recorded.
 */
export const postingDate = {
  document(d: { date_taxable?: string | null; date_issued: string }): PostedOn {
    return d.date_taxable ? { field: 'date_taxable', date: d.date_taxable } : { field: 'date_issued', date: d.date_issued };
  },
  bankTransaction(t: { date_accounting?: string | null; date_transaction: string }): PostedOn {
    return t.date_accounting ? { field: 'date_accounting', date: t.date_accounting } : { field: 'date_transaction', date: t.date_transaction };
  },
  /** `recordedOn` is the day the payout is recorded (its event's day); without it a payout of no dates has none. */
  payout: payoutPostingDate,
};

type PayoutDates = { date_issued?: string | null; lines?: ReadonlyArray<{ date_accounting?: string | null; date_transaction?: string | null }> | null };

function payoutPostingDate(p: PayoutDates, recordedOn: string): PostedOn;
function payoutPostingDate(p: PayoutDates, recordedOn: string | undefined): PostedOn | null;
function payoutPostingDate(p: PayoutDates, recordedOn: string | undefined): PostedOn | null {
  if (p.date_issued) return { field: 'date_issued', date: p.date_issued };
  let latest: PostedOn | null = null;
  for (const [i, l] of (p.lines ?? []).entries()) {
    const date = l.date_accounting ?? l.date_transaction;
    if (date && (!latest || date > latest.date)) latest = { field: `lines[${i}].${l.date_accounting ? 'date_accounting' : 'date_transaction'}`, date };
  }
  return latest ?? (recordedOn ? { field: 'date_issued', date: recordedOn } : null);
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The lock date of a replicated profile (null: the books are open). */
export function lockDateOf(profile: Record<string, unknown> | null | undefined): string | null {
  const v = profile?.lock_date;
  return typeof v === 'string' && ISO_DAY.test(v) ? v : null;
}

/**
 * What every posting write reads of its organisation, in one statement: the legal currency (the
 * fallback until the profile has reached the service), the lock date, and what a document's lines
 * are decided by (issue 70): the country and what a line supplies unless it says (null: not known yet).
 */
export async function postingSettingsOf(scope: TenantScope): Promise<{ legalCurrency: string; lockDate: string | null; country: string | null; defaultSupply: string | null; isVatPayer: boolean }> {
  const { em, orgId } = scope;
  const [row] = await sqlRows<{ legal_currency: string; lock_date: string | null; country: string | null; default_supply: string | null; is_vat_payer: boolean | null }>(
    em,
    `select legal_currency, profile->>'lock_date' as lock_date, country, profile->>'default_supply' as default_supply, is_vat_payer from kit_organisations where org_id = ?`,
    [orgId],
    { prepared: true },
  );
  return {
    legalCurrency: row?.legal_currency ?? FALLBACK_LEGAL_CURRENCY,
    lockDate: lockDateOf({ lock_date: row?.lock_date }),
    country: row?.country ?? null,
    defaultSupply: row?.default_supply ?? null,
    isVatPayer: row?.is_vat_payer ?? true,
  };
}

/**
 * 409 `period_locked` when a day a write posts on (or takes back) is on or before the lock date;
 * `what` names the write for the message ("the invoice", "bank transaction 7"). Dates are ISO
 * calendar days, so they compare as text.
 */
export function refuseClosedPeriod(lockDate: string | null, what: string, dates: ReadonlyArray<PostedOn>): void {
  if (!lockDate) return;
  const closed = dates.filter((d) => d.date <= lockDate);
  if (!closed.length) return;
  throw new ConflictError(
    `The books are closed through ${lockDate}: ${what} would post on ${closed[0].date}, in the closed period (an administrator reopens it by moving the organisation's lock_date back)`,
    'period_locked',
    // a statement of thousands of entries names the first hundred
    closed.slice(0, 100).map((d) => ({ path: d.field, message: `${d.date} is on or before the lock date ${lockDate}`, code: 'period_locked' })),
  );
}
