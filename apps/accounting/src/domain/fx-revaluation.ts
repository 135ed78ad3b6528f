import {
  RPC_SUBJECTS,
  foreignBalancesAnswerSchema,
  openForeignDocumentsAnswerSchema,
  type FxRevaluation,
  type FxRevaluationRequest,
  type OpenForeignDocument,
} from '@ledgerline/contracts';
import { BusinessRuleError, ConflictError, addDays, noRateInForce, postingSettingsOf, rateFrom, refuseClosedPeriod, sqlRows, tableRates, toDb, toWire, type TenantContext } from '@ledgerline/service-kit';
import type { ApplyOptions } from '../events/ledger-events.js';
import { numbersOf, postJournalEntry } from './journal-entries.js';
import { reversingLines } from './journal-lines.js';
import { revaluationLines, revalue, type RevaluedItem } from './fx-revaluation-lines.js';

/*
 * Revaluation of foreign-currency items (decision 206): the receivables, payables and bank
 * balances in a foreign currency open at the end of a day, valued at the rates in force that
 * day. Sales, purchase and finance say what is open and the legal value it is booked at; settings
 * gives the rates. One journal entry of kind fx_revaluation posts the differences on the day, and
 * its reversal posts on the next day, so the items are settled at their own rates afterwards and
 * the revaluation touches only the period it belongs to. Both are journal entries: numbered,
 * announced and replayed by a rebuild like any other. One revaluation per organisation and day:
 * asking again answers the one made.
 */

interface StoredLine extends RevaluedItem {
  document: { type: string; id: number; no: string } | null;
  bank_account: string | null;
  rate_date: string;
  rate_source: 'cnb' | 'ecb' | 'manual';
}

interface StoredRevaluation {
  date: string;
  currency: string;
  gain: string;
  loss: string;
  lines: StoredLine[];
  journal_entry_id: string | null;
  reversal_id: string | null;
  created_at: Date;
  created_by: string;
}

const KIND_OF_DOCUMENT: Record<OpenForeignDocument['type'], 'receivable' | 'payable'> = {
  sales_invoice: 'receivable',
  sales_credit_note: 'receivable',
  // never asked: sales answers invoices and credit notes only (a proforma's advance sits on 324 at its payment's rate)
  sales_proforma: 'receivable',
  purchase_bill: 'payable',
  // never asked either: an advance paid sits on 314 at its payment's rate
  purchase_advance: 'payable',
  purchase_vendor_credit: 'payable',
};

async function stored(ctx: TenantContext, date: string): Promise<StoredRevaluation | null> {
  const [row] = await sqlRows<StoredRevaluation>(
    ctx.em,
    `select to_char(date, 'YYYY-MM-DD') as date, currency, gain::text as gain, loss::text as loss, lines, journal_entry_id, reversal_id, created_at, created_by
       from fx_revaluations where org_id = ? and date = ?::date`,
    [ctx.orgId, date],
  );
  return row ?? null;
}

async function view(ctx: TenantContext, r: StoredRevaluation): Promise<FxRevaluation> {
  const numbers = await numbersOf(ctx, [r.journal_entry_id, r.reversal_id].filter((x): x is string => x != null).map(Number));
  const link = (id: string | null) => (id == null ? null : { id: Number(id), no: numbers.get(Number(id)) ?? '' });
  return {
    date: r.date,
    currency: r.currency,
    gain: toWire(r.gain)!,
    loss: toWire(r.loss)!,
    lines: r.lines.map((l) => ({
      kind: l.kind,
      document: l.document,
      account_number: l.bank_account,
      gl_account: l.account_number,
      currency: l.currency,
      amount: toWire(l.amount)!,
      rate: Number(l.rate.rate),
      rate_amount: l.rate.amount,
      rate_date: l.rate_date,
      rate_source: l.rate_source,
      booked: toWire(l.booked)!,
      revalued: toWire(l.revalued)!,
      difference: toWire(l.difference)!,
      result: toWire(l.result)!,
    })),
    journal_entry: link(r.journal_entry_id),
    reversed_by: link(r.reversal_id),
    created_at: new Date(r.created_at).toISOString(),
    created_by: r.created_by,
  };
}

/** What is open in foreign currencies at the end of `date`, as the owning services answer it. */
async function openItems(ctx: TenantContext, date: string) {
  const [sales, purchase, bank] = await Promise.all([
    ctx.ask(RPC_SUBJECTS.salesOpenForeign, { date }).then((a) => openForeignDocumentsAnswerSchema.parse(a).documents),
    ctx.ask(RPC_SUBJECTS.purchaseOpenForeign, { date }).then((a) => openForeignDocumentsAnswerSchema.parse(a).documents),
    ctx.ask(RPC_SUBJECTS.financeForeignBalances, { date }).then((a) => foreignBalancesAnswerSchema.parse(a).balances),
  ]);
  return { documents: [...sales, ...purchase], bank };
}

/**
 * A revaluation is of a day that has come (issue 70): one dated ahead would miss what is paid and
 * issued until then, and revaluations go in order of days, so every earlier day would then be
 * refused. "Today" is the latest day any time zone has reached (UTC+14), so no organisation is
 * refused its own year-end on the evening of 31 December.
 */
export function refuseFutureRevaluation(date: string, now: Date): void {
  const latestToday = new Date(now.getTime() + 14 * 3_600_000).toISOString().slice(0, 10);
  if (date <= latestToday) return;
  const message = `${date} has not come yet: a revaluation is of a day that has ended or is under way (today is ${now.toISOString().slice(0, 10)})`;
  throw new BusinessRuleError(`The revaluation cannot be dated ahead: ${message}`, 'date_in_future', [{ path: 'date', message, code: 'date_in_future' }]);
}

export async function revalueForeignItems(ctx: TenantContext, req: FxRevaluationRequest, opts: ApplyOptions): Promise<FxRevaluation> {
  const { em, orgId } = ctx;
  const { date } = req;
  refuseFutureRevaluation(date, ctx.now());
  // one revaluation of a day at a time: the second waits, then answers the first's
  await sqlRows(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [`fx-revaluation:${orgId}:${date}`]);
  const done = await stored(ctx, date);
  if (done) return view(ctx, done);
  const books = await postingSettingsOf(ctx);
  const nextDay = addDays(date, 1);
  refuseClosedPeriod(books.lockDate, 'the revaluation', [{ field: 'date', date }]);
  const later = await sqlRows(em, `select 1 from fx_revaluations where org_id = ? and date > ?::date limit 1`, [orgId, date]);
  if (later.length) {
    throw new ConflictError(`A later day is revalued already: revalue in order of days`, 'later_revaluation_exists', [{ path: 'date', message: 'a later day is revalued', code: 'later_revaluation_exists' }]);
  }

  const { documents, bank } = await openItems(ctx, date);
  const asks = [...documents.map((d) => ({ currency: d.currency, date })), ...bank.map((b) => ({ currency: b.currency, date }))];
  const rates = asks.length ? await tableRates(ctx, asks) : new Map();
  const rateOf = (currency: string, path: string) => {
    const r = rateFrom(rates, currency, date);
    if (!r) throw noRateInForce(currency, date, books.legalCurrency, path);
    return r;
  };
  const lines: StoredLine[] = [
    ...documents.map((d) => {
      const r = rateOf(d.currency, 'date');
      const item = revalue({ kind: KIND_OF_DOCUMENT[d.type], label: d.no, currency: d.currency, amount: d.open_amount, booked: d.open_amount_leg, rate: { rate: r.rate, amount: r.amount } });
      return { ...item, document: { type: d.type, id: d.id, no: d.no }, bank_account: null, rate_date: r.rate_date, rate_source: r.source };
    }),
    ...bank.map((b) => {
      const r = rateOf(b.currency, 'date');
      const item = revalue({ kind: 'bank', label: `Bank account ${b.account_number ?? '(none)'}`, currency: b.currency, amount: b.balance, booked: b.balance_leg, rate: { rate: r.rate, amount: r.amount } });
      return { ...item, document: null, bank_account: b.account_number, rate_date: r.rate_date, rate_source: r.source };
    }),
  ];
  const posting = revaluationLines(lines);
  let entryId: number | null = null;
  let reversalId: number | null = null;
  if (posting.lines.length) {
    const entry = await postJournalEntry(ctx, opts, {
      kind: 'fx_revaluation',
      datePosting: date,
      description: `Revaluation of foreign-currency items on ${date}`,
      reference: null,
      currency: books.legalCurrency,
      lines: posting.lines,
      total: posting.total,
      reversesId: null,
    });
    const reversal = await postJournalEntry(ctx, opts, {
      kind: 'fx_revaluation',
      datePosting: nextDay,
      description: `Reversal of ${entry.no}: revaluation of ${date}`,
      reference: null,
      currency: books.legalCurrency,
      lines: reversingLines(posting.lines),
      total: posting.total,
      reversesId: entry.id,
    });
    await sqlRows(em, 'update journal_entries set reversed_by_id = ? where org_id = ? and id = ?', [reversal.id, orgId, entry.id]);
    entryId = entry.id;
    reversalId = reversal.id;
  }
  const [row] = await sqlRows<{ created_at: Date }>(
    em,
    `insert into fx_revaluations (org_id, date, currency, gain, loss, lines, journal_entry_id, reversal_id, created_by) values (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?) returning created_at`,
    [orgId, date, books.legalCurrency, toDb(posting.gain), toDb(posting.loss), JSON.stringify(lines), entryId, reversalId, ctx.actor],
  );
  return view(ctx, {
    date,
    currency: books.legalCurrency,
    gain: toDb(posting.gain),
    loss: toDb(posting.loss),
    lines,
    journal_entry_id: entryId == null ? null : String(entryId),
    reversal_id: reversalId == null ? null : String(reversalId),
    created_at: row.created_at,
    created_by: ctx.actor,
  });
}
