import { isoDate, type AccountLedger, type AccountLedgerQuery } from '@ledgerline/contracts';
import { dec, decodeCursor, encodeCursor, invalidCursor, JsonText, listDigest, parseRange, refuseReversedPeriod, sqlRows, toWire, type TenantContext } from '@ledgerline/service-kit';
import { GENERAL_LEDGER_BOOK, type ChartLocale } from './chart.js';
import { daySums } from './day-sums.js';
import { accountsNamed, glAccountView } from './transactions.js';
import { legalCurrencyOf } from './trial-balance.js';
import { jsonInteger, jsonMembers, jsonNumber, jsonString } from './json-sql.js';

/*
 * The ledger of an account (decision 168): its balance before the period, each posting of the
 * period with the balance after it, and the balance at the end — what an accountant reconciles
 * 221 against the bank's statement with, or reads to see what waits on 395.
 *
 * The opening balance, the period's sums and its number of lines come from the day sums
 * (decision 215). A page by cursor (decision 216) starts after the last line of the page before
 * it, and its running balance from the day sums before that line's day plus that day's rows up to
 * the line: it costs what the first page costs, wherever it is. A page by offset (`from`) sums the
 * period's lines before it, as it always did.
 */

/**
 * The statements below are fixed texts, each parsed and planned once per connection (decision 83)
 * rather than on every page.
 */
const PREPARED = { prepared: true };

/** The order of the lines, and of a cursor's keys. */
const ORDER = ['date_posting', 'transaction_id', 'ord'];

/** The accounts of the range, as every statement below names them. */
const IN_RANGE = `r.gl_account_number collate "C" >= ? collate "C" and r.gl_account_number collate "C" <= ? collate "C"`;

/** The balance before the period, the period's sums and its number of lines, from the day sums. */
export const SUMS = daySums(`r.org_id = ? and r.book_id = ? and r.date_posting <= ?::date and ${IN_RANGE}`);
/** Parameters: the period's first day four times, then `SUMS.params` of organisation, book, the period's last day, the range's low and high account. */
export const SUMS_SQL = `
  select coalesce(sum(r.debit - r.credit) filter (where r.date_posting < ?::date), 0)::text as opening,
         coalesce(sum(r.debit) filter (where r.date_posting >= ?::date), 0)::text as debit,
         coalesce(sum(r.credit) filter (where r.date_posting >= ?::date), 0)::text as credit,
         coalesce(sum(r.lines) filter (where r.date_posting >= ?::date), 0)::text as lines
    from ${SUMS.from}`;

/** The balance up to a line (a cursor's): the day sums before its day, and that day's rows up to it. */
const BEFORE_DAY = daySums(`r.org_id = ? and r.book_id = ? and r.date_posting < ?::date and ${IN_RANGE}`);
const BALANCE_AT_SQL = `
  select (coalesce((select sum(r.debit - r.credit) from ${BEFORE_DAY.from}), 0)
        + coalesce((select sum(r.debit - r.credit) from ledger_rows r
                     where r.org_id = ? and r.book_id = ? and r.date_posting = ?::date and ${IN_RANGE}
                       and (r.transaction_id, r.ord) <= (?::bigint, ?::int)), 0))::text as balance`;

/**
 * A line's JSON (`AccountLedgerLine`) after its day and account, as Postgres writes it: its entry's
 * header, its figures and the balance after it, `balance` an expression. A 500-line page read as
 * fourteen columns a line, built into views and serialised cost accounting half as much CPU again
 * as reading this one text a line (decision 273); the day and the account's view (named by the
 * locale, made once a page) are joined to it in the service.
 */
export function accountLineRestSql(balance: string): string {
  return `',' || ${jsonMembers([
    ['transaction_id', jsonInteger('p.transaction_id')],
    ['no', jsonString('t.no')],
    ['type', jsonString('t.type')],
    ['source', `'{' || ${jsonMembers([['type', jsonString('t.source_type')], ['id', jsonInteger('t.source_id')], ['version', jsonInteger('t.source_version')]])} || '}'`],
    ['description', jsonString('coalesce(p.description, t.description)')],
    ['debit', jsonNumber('p.debit')],
    ['credit', jsonNumber('p.credit')],
    ['balance', jsonNumber(balance)],
  ])} || '}'`;
}

/**
 * The page's lines with their entries' headers, the balance after each the rows' sum up to it
 * (`moved`) added to the balance the page starts from (bound after the page's own parameters).
 * Added here, not in Node: a decimal sum and its conversion per line were 0.7–0.9 ms of a 500-line
 * page's CPU, where the plain string Postgres writes is read as a number directly (issue 79).
 */
const withHeaders = (page: string) => `
  with page as (${page})
  select to_char(p.date_posting, 'YYYY-MM-DD') as date_posting, p.gl_account_number, p.transaction_id, p.ord,
         ${accountLineRestSql('p.moved + ?::numeric')} as rest
    from page p join accounting_transactions t on t.id = p.transaction_id and t.org_id = ?
   order by p.date_posting, p.transaction_id, p.ord`;

/** A page from the period's start or after a line (`after`: the day bound repeated, which the index ranges over): moved sums the page's own rows. */
const pageAfterSql = (after: string) =>
  withHeaders(`
    select r.transaction_id, r.ord, r.date_posting, r.gl_account_number, r.debit, r.credit, r.description,
           sum(r.debit - r.credit) over (order by r.date_posting, r.transaction_id, r.ord rows unbounded preceding) as moved
      from (select r.transaction_id, r.ord, r.date_posting, r.gl_account_number, r.debit, r.credit, r.description
              from ledger_rows r
             where r.org_id = ? and r.book_id = ? and r.date_posting between ?::date and ?::date and ${IN_RANGE} ${after}
             order by r.date_posting, r.transaction_id, r.ord
             limit ?) r`);
/** The period's first page: parameters organisation, book, period's first and last day, range's low and high account, rows, the balance before it, organisation. */
export const FIRST_PAGE_SQL = pageAfterSql('');
const PAGE_AFTER_SQL = pageAfterSql('and r.date_posting >= ?::date and (r.date_posting, r.transaction_id, r.ord) > (?::date, ?::bigint, ?::int)');

/** A page by offset: moved sums the period's rows from its start, so the page's balance follows from the opening one. */
const PAGE_BY_OFFSET_SQL = withHeaders(`
  select * from (
    select r.transaction_id, r.ord, r.date_posting, r.gl_account_number, r.debit, r.credit, r.description,
           sum(r.debit - r.credit) over (order by r.date_posting, r.transaction_id, r.ord rows unbounded preceding) as moved
      from ledger_rows r
     where r.org_id = ? and r.book_id = ? and r.date_posting between ?::date and ?::date and ${IN_RANGE}) period
   order by date_posting, transaction_id, ord limit ? offset ?`);

interface PageRow {
  date_posting: string;
  gl_account_number: string;
  transaction_id: number;
  ord: number;
  /** The line's JSON after its account's view (`accountLineRestSql`). */
  rest: string;
}

/** A cursor's line: its day, entry and row, checked for what the columns take (a forged one is 400, never a query error). */
function cursorLine(values: Array<string | null>): { date: string; transactionId: string; ord: string } {
  const [date, transactionId, ord] = values;
  const valid = date !== null && isoDate.safeParse(date).success && transactionId !== null && /^\d{1,18}$/.test(transactionId) && ord !== null && /^\d{1,9}$/.test(ord);
  if (!valid) throw invalidCursor('not a cursor this list answered');
  return { date, transactionId, ord };
}

/** The ledger of an account in a period (`AccountLedger`), its lines as Postgres wrote them. */
export async function accountLedger(ctx: TenantContext, q: AccountLedgerQuery, locale: ChartLocale, defaultCurrency: string): Promise<JsonText> {
  refuseReversedPeriod(q);
  const { em, orgId } = ctx;
  const range = parseRange('account_number', q.account_number, 'string')!;
  // an open end of the range reaches every account past it (text order: digits before letters)
  const [low, high] = [range.from ?? '', range.to ?? '\u{10FFFF}'];
  const book = GENERAL_LEDGER_BOOK.id;
  const digest = listDigest('account_ledger', String(orgId), [low, high, q.date_from, q.date_to], ORDER);
  const after = q.cursor === undefined ? null : cursorLine(decodeCursor(q.cursor, ORDER, digest));
  if (after && q.from !== 0) throw invalidCursor('a cursor continues a list by itself; leave from out (or 0)');

  const [sums] = await sqlRows<{ opening: string; debit: string; credit: string; lines: string }>(em, SUMS_SQL, [
    q.date_from,
    q.date_from,
    q.date_from,
    q.date_from,
    ...SUMS.params([orgId, book, q.date_to, low, high]),
  ], PREPARED);
  const opening = dec(sums.opening);
  // one row more than the page, to know whether a page follows
  const period = [orgId, book, q.date_from, q.date_to, low, high];
  let rows: PageRow[];
  if (after) {
    const [at] = await sqlRows<{ balance: string }>(em, BALANCE_AT_SQL, [
      ...BEFORE_DAY.params([orgId, book, after.date, low, high]),
      orgId,
      book,
      after.date,
      low,
      high,
      after.transactionId,
      after.ord,
    ], PREPARED);
    // a page after a line: its own rows' sums, from the balance at that line
    rows = await sqlRows<PageRow>(em, PAGE_AFTER_SQL, [...period, after.date, after.date, after.transactionId, after.ord, q.take + 1, at.balance, orgId], PREPARED);
  } else if (q.from > 0) {
    // a page by offset: the period's sums from its start, from the opening balance
    rows = await sqlRows<PageRow>(em, PAGE_BY_OFFSET_SQL, [...period, q.take + 1, q.from, sums.opening, orgId], PREPARED);
  } else {
    rows = await sqlRows<PageRow>(em, FIRST_PAGE_SQL, [...period, q.take + 1, sums.opening, orgId], PREPARED);
  }
  const more = rows.length > q.take;
  if (more) rows = rows.slice(0, q.take);
  const last = rows[rows.length - 1];
  const accounts = await accountsNamed(ctx, new Set(rows.map((r) => r.gl_account_number)));
  // each account's view written once a page, not once a line
  const views = new Map<string, string>();
  const accountView = (n: string) => {
    let view = views.get(n);
    if (view === undefined) views.set(n, (view = JSON.stringify(glAccountView(n, accounts, locale))));
    return view;
  };
  const header: Omit<AccountLedger, 'lines'> = {
    currency: await legalCurrencyOf(ctx, defaultCurrency),
    account_number: q.account_number,
    date_from: q.date_from,
    date_to: q.date_to,
    opening_balance: toWire(opening),
    debit: toWire(sums.debit),
    credit: toWire(sums.credit),
    closing_balance: toWire(opening.plus(sums.debit).minus(sums.credit)),
    total: Number(sums.lines),
    total_exact: true,
    from: after ? 0 : q.from,
    take: q.take,
    next_cursor: more && last ? encodeCursor(ORDER, digest, [last.date_posting, String(last.transaction_id), String(last.ord)]) : null,
  };
  // the header's members, then the lines, in the order of AccountLedger's fields
  const head = `${JSON.stringify(header).slice(0, -1)},"lines":[`;
  // a day is to_char's digits and dashes: written as it is
  return JsonText.ofList(head, rows.map((r) => `{"date_posting":"${r.date_posting}","gl_account":${accountView(r.gl_account_number)}${r.rest}`), ']}');
}
