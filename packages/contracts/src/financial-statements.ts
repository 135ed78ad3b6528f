import { z } from 'zod';
import { currencyCode, glAccountSchema, int64, isoDate, moneyAggregate } from './common.js';
import { keysetPagingQuery, rangeQuery } from './paging.js';

/*
 * The profit and loss account and the balance sheet (decision 167), summed from the ledger per
 * account in the legal currency, grouped by the classes of the Czech chart: 0–2 assets, 3 by the
 * sign of each account's balance, 41–43 and 49 equity, 44–48 liabilities, 5 expenses, 6 revenue,
 * 7–9 closing and internal accounts (with equity).
 */

const statementLineSchema = z
  .object({ gl_account: glAccountSchema, amount: moneyAggregate })
  .meta({ id: 'StatementLine', description: 'An account and its figure in the section' });

const statementSectionSchema = z
  .object({ lines: z.array(statementLineSchema).describe('One line per account with a figure, by account number'), total: moneyAggregate })
  .meta({ id: 'StatementSection' });

const closedSchema = z.boolean().describe("true when the organisation's books are closed through the statement's last day (lock_date): the figures can no longer change");

export const profitAndLossQuerySchema = z.object({
  date_from: isoDate.describe('First day of the period (e.g. 2026-01-01)'),
  date_to: isoDate.describe('Last day of the period, on or after date_from'),
});

export const profitAndLossSchema = z
  .object({
    currency: currencyCode.describe('Legal currency'),
    date_from: isoDate,
    date_to: isoDate,
    revenue: statementSectionSchema.describe('Class 6: credit − debit of each account in the period'),
    expenses: statementSectionSchema.describe('Class 5: debit − credit of each account in the period'),
    profit: moneyAggregate.describe('revenue − expenses; negative is a loss'),
    closed: closedSchema,
  })
  .meta({ id: 'ProfitAndLoss', description: 'The profit and loss account of a period (výkaz zisku a ztráty), per account' });
export type ProfitAndLoss = z.infer<typeof profitAndLossSchema>;

export const balanceSheetQuerySchema = z.object({
  as_of: isoDate.describe('The day the balances are taken at the end of (e.g. 2026-12-31)'),
});

export const balanceSheetSchema = z
  .object({
    currency: currencyCode.describe('Legal currency'),
    as_of: isoDate,
    assets: statementSectionSchema.describe('Classes 0–2, and class-3 accounts with a debit balance: debit − credit (accumulated depreciation negative)'),
    liabilities: statementSectionSchema.describe('Accounts 44–48, and class-3 accounts with a credit balance: credit − debit'),
    equity: statementSectionSchema.describe('Accounts 41–43 and 49, and classes 7–9 (opening and closing balance accounts): credit − debit'),
    result: moneyAggregate.describe('The profit (negative: loss) on classes 5 and 6 not yet closed into equity: result_of_year + result_of_earlier_years'),
    result_of_year: moneyAggregate.describe('The part of result posted from 1 January of the year of as_of to as_of'),
    result_of_earlier_years: moneyAggregate.describe('The part of result of earlier years that no closing entries moved into equity (428, 431); 0 once they are closed'),
    total_assets: moneyAggregate,
    total_liabilities_and_equity: moneyAggregate.describe('liabilities + equity + result; equals total_assets'),
    closed: closedSchema,
  })
  .meta({ id: 'BalanceSheet', description: 'The balance sheet at the end of a day (rozvaha), per account' });
export type BalanceSheet = z.infer<typeof balanceSheetSchema>;

// --- the ledger of an account (decision 168) ---------------------------------------------------

export const accountLedgerQuerySchema = z.object({
  account_number: rangeQuery('string').describe('The account (343), or a range of accounts compared as text ([221;221.999]: 221 and its analytic accounts)'),
  date_from: isoDate.describe('First day of the period'),
  date_to: isoDate.describe('Last day of the period, on or after date_from'),
  ...keysetPagingQuery(500),
});
export type AccountLedgerQuery = z.output<typeof accountLedgerQuerySchema>;

const accountLedgerLineSchema = z
  .object({
    date_posting: isoDate,
    gl_account: glAccountSchema,
    transaction_id: int64.describe('The accounting transaction (GET /v1/accounting/transactions)'),
    no: z.string().nullable().describe('Number of the posted document or journal entry'),
    type: z.string().describe('Kind of the entry: sales_invoice, …, journal_entry, reversal'),
    source: z.object({ type: z.string(), id: int64, version: z.int() }).describe('The posted document'),
    description: z.string().nullable(),
    debit: moneyAggregate,
    credit: moneyAggregate,
    balance: moneyAggregate.describe('debit − credit of the account after this line, the opening balance included'),
  })
  .meta({ id: 'AccountLedgerLine' });

export const accountLedgerSchema = z
  .object({
    currency: currencyCode.describe('Legal currency'),
    account_number: z.string(),
    date_from: isoDate,
    date_to: isoDate,
    opening_balance: moneyAggregate.describe('debit − credit of everything posted before date_from'),
    debit: moneyAggregate.describe('Σ debit in the period'),
    credit: moneyAggregate.describe('Σ credit in the period'),
    closing_balance: moneyAggregate.describe('opening_balance + debit − credit'),
    total: z.int().min(0).describe('Lines in the period'),
    total_exact: z.boolean().describe('Always true: the lines are counted from the ledger’s day sums'),
    from: z.int().min(0).describe('Offset of the first line (0 when the page was asked for by cursor)'),
    take: z.int().min(0),
    next_cursor: z.string().nullable().describe('Pass as `cursor` (with the same account and period) for the page after this one, as cheap as the first wherever it is; null on the last page'),
    lines: z.array(accountLedgerLineSchema).describe('The postings of the period in posting order (day, entry, row), this page of them'),
  })
  .meta({ id: 'AccountLedger', description: 'The postings of an account in a period with the running balance (hlavní kniha of one account)' });
export type AccountLedger = z.infer<typeof accountLedgerSchema>;
