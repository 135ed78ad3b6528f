import type { AccountLedger, AccountLedgerQuery } from '@ledgerline/contracts';
import { dec, parseRange, refuseReversedPeriod, sqlRows, toWire, type TenantContext } from '@ledgerline/service-kit';
import { GENERAL_LEDGER_BOOK, type ChartLocale } from './chart.js';
import { daySums } from './day-sums.js';
import { accountsOf, glAccountView } from './transactions.js';
import { legalCurrencyOf } from './trial-balance.js';

/*
 * The ledger of an account (decision 168): its balance before the period, each posting of the
 * period with the balance after it, and the balance at the end — what an accountant reconciles
 * 221 against the bank's statement with, or reads to see what waits on 395. The running balance
 * is summed by the database over the whole period, so a page starting anywhere carries it.
 */

/** The postings of the accounts in the period, each with its balance after it, one page of them and their count. */
const PAGE_SQL = `
  with period as (
    select r.transaction_id, r.ord, r.date_posting, r.gl_account_number, r.debit, r.credit, r.description,
           sum(r.debit - r.credit) over (order by r.date_posting, r.transaction_id, r.ord rows unbounded preceding) as moved,
           count(*) over () as lines
      from ledger_rows r
     where r.org_id = ? and r.book_id = ? and r.date_posting between ?::date and ?::date
       and r.gl_account_number collate "C" >= ? collate "C" and r.gl_account_number collate "C" <= ? collate "C"
  ), page as (
    select * from period order by date_posting, transaction_id, ord limit ? offset ?
  )
  -- the entries' headers of this page alone
  select to_char(p.date_posting, 'YYYY-MM-DD') as date_posting, p.gl_account_number, p.debit::text, p.credit::text, p.moved::text,
         coalesce(p.description, t.description) as description, p.transaction_id, t.no, t.type,
         t.source_type, t.source_id, t.source_version, p.lines
    from page p join accounting_transactions t on t.id = p.transaction_id and t.org_id = ?
   order by p.date_posting, p.transaction_id, p.ord`;

/** The balance before the period and the period's sums, from the day sums (decision 215). */
const SUMS = daySums(
  `r.org_id = ? and r.book_id = ? and r.date_posting <= ?::date
   and r.gl_account_number collate "C" >= ? collate "C" and r.gl_account_number collate "C" <= ? collate "C"`,
);
const SUMS_SQL = `
  select coalesce(sum(r.debit - r.credit) filter (where r.date_posting < ?::date), 0)::text as opening,
         coalesce(sum(r.debit) filter (where r.date_posting >= ?::date), 0)::text as debit,
         coalesce(sum(r.credit) filter (where r.date_posting >= ?::date), 0)::text as credit
    from ${SUMS.from}`;

interface PageRow {
  date_posting: string;
  gl_account_number: string;
  debit: string;
  credit: string;
  moved: string;
  description: string | null;
  transaction_id: string;
  no: string | null;
  type: string;
  source_type: string;
  source_id: string;
  source_version: number;
  lines: string;
}

export async function accountLedger(ctx: TenantContext, q: AccountLedgerQuery, locale: ChartLocale, defaultCurrency: string): Promise<AccountLedger> {
  refuseReversedPeriod(q);
  const { em, orgId } = ctx;
  const range = parseRange('account_number', q.account_number, 'string')!;
  // an open end of the range reaches every account past it (text order: digits before letters)
  const [low, high] = [range.from ?? '', range.to ?? '\u{10FFFF}'];
  const book = GENERAL_LEDGER_BOOK.id;
  const [sums] = await sqlRows<{ opening: string; debit: string; credit: string }>(em, SUMS_SQL, [q.date_from, q.date_from, q.date_from, ...SUMS.params([orgId, book, q.date_to, low, high])]);
  const rows = await sqlRows<PageRow>(em, PAGE_SQL, [orgId, book, q.date_from, q.date_to, low, high, q.take, q.from, orgId]);
  const opening = dec(sums.opening);
  const accounts = await accountsOf(em);
  return {
    currency: await legalCurrencyOf(ctx, defaultCurrency),
    account_number: q.account_number,
    date_from: q.date_from,
    date_to: q.date_to,
    opening_balance: toWire(opening),
    debit: toWire(sums.debit),
    credit: toWire(sums.credit),
    closing_balance: toWire(opening.plus(sums.debit).minus(sums.credit)),
    total: rows.length ? Number(rows[0].lines) : await countOf(ctx, q, low, high),
    from: q.from,
    take: q.take,
    lines: rows.map((r) => ({
      date_posting: r.date_posting,
      gl_account: glAccountView(r.gl_account_number, accounts, locale),
      transaction_id: Number(r.transaction_id),
      no: r.no,
      type: r.type,
      source: { type: r.source_type, id: Number(r.source_id), version: Number(r.source_version) },
      description: r.description,
      debit: toWire(r.debit),
      credit: toWire(r.credit),
      balance: toWire(opening.plus(r.moved)),
    })),
  };
}

/** The count of the period's lines when the page holds none (the page query's own count comes with its rows). */
async function countOf({ em, orgId }: TenantContext, q: AccountLedgerQuery, low: string, high: string): Promise<number> {
  const [row] = await sqlRows<{ n: string }>(
    em,
    `select count(*) as n from ledger_rows r where r.org_id = ? and r.book_id = ? and r.date_posting between ?::date and ?::date
       and r.gl_account_number collate "C" >= ? collate "C" and r.gl_account_number collate "C" <= ? collate "C"`,
    [orgId, GENERAL_LEDGER_BOOK.id, q.date_from, q.date_to, low, high],
  );
  return Number(row.n);
}
