import { z } from 'zod';
import { centAmount, currencyCode, id, int32, isoDate, isoDateTime, moneyAggregate, nullish, positiveRate, shortText } from './common.js';
import { pagedEnvelope, pagingQuery, rangeQuery, searchQuery, sortQuery, keysetPagedEnvelope, keysetPagingQuery } from './paging.js';

/*
 * Manual journal entries (decision 165): what no document posts — opening balances, accruals and
 * their reversal, depreciation, corrections — posted by an accountant straight to the ledger in
 * the legal currency. A posted entry is never changed: it is undone by a reversing entry.
 */

/** Most lines one entry may carry (an opening balance of a mature chart fits well within it). */
export const JOURNAL_MAX_LINES = 500;

/**
 * An account of the chart: its three-digit synthetic account, optionally followed by an analytic
 * suffix (`518`, `518100`, `221.001`).
 */
export const journalAccountNumber = z
  .string()
  .regex(/^[0-9]{3}[0-9A-Za-z._-]{0,29}$/, 'a three-digit account, optionally with an analytic suffix (518, 518100, 221.001)')
  .describe('Account number: three digits of the synthetic account, optionally an analytic suffix, e.g. "518" or "221.001"');

const lineSide = centAmount.min(0).describe('Amount in the legal currency, at most two decimals');

export const journalLineRequestSchema = z
  .object({
    account_number: journalAccountNumber,
    debit: lineSide.optional(),
    credit: lineSide.optional(),
    description: nullish(shortText(255)).describe("This line's text in the ledger; the entry's description when absent"),
  })
  .refine((l) => ((l.debit ?? 0) > 0) !== ((l.credit ?? 0) > 0), {
    message: 'a line is a debit or a credit: exactly one of debit and credit, greater than zero',
    path: ['debit'],
  })
  .meta({ id: 'JournalLineRequest', description: 'One line of a journal entry: an account and its debit or its credit' });

export const journalEntryRequestSchema = z
  .object({
    date_posting: isoDate.describe('The day the entry posts on; refused (409 period_locked) on or before the lock date'),
    description: shortText(255).min(1).describe('What the entry is, e.g. "Depreciation October 2026"'),
    reference: nullish(shortText(64)).describe('Your own reference (a working paper, a contract)'),
    lines: z.array(journalLineRequestSchema).min(2).max(JOURNAL_MAX_LINES).describe('At least two lines; Σ debit must equal Σ credit (422 journal_unbalanced)'),
  })
  .meta({ id: 'JournalEntryRequest', description: 'A manual journal entry to post' });
export type JournalEntryRequest = z.infer<typeof journalEntryRequestSchema>;

export const journalEntryReverseSchema = z
  .object({
    date_posting: isoDate.optional().describe('The day the reversal posts on; the reversed entry’s own day when absent (an accrual is usually reversed on the first day of the next period)'),
    description: shortText(255).min(1).optional().describe('“Reversal of <no>: <description>” when absent'),
  })
  .meta({ id: 'JournalEntryReverseRequest', description: 'How to reverse a journal entry' });
export type JournalEntryReverse = z.infer<typeof journalEntryReverseSchema>;

const entryLink = z.object({ id, no: shortText(64) });

export const journalLineSchema = z
  .object({
    order: int32.describe('Position of the line, from 1'),
    account_number: shortText(32),
    debit: moneyAggregate,
    credit: moneyAggregate,
    description: z.string().nullable(),
  })
  .meta({ id: 'JournalLine' });

/**
 * What posted an entry: an accountant by hand, the closing of a year (and the reopening that
 * reverses it), a revaluation of foreign-currency items (and its reversal), or the exchange
 * difference of a credit set off against a document at another rate (and its reversal when the
 * set-off is taken back).
 */
export const JOURNAL_ENTRY_KINDS = ['manual', 'year_end_close', 'fx_revaluation', 'fx_settlement', 'depreciation', 'fixed_asset'] as const;
export type JournalEntryKind = (typeof JOURNAL_ENTRY_KINDS)[number];

export const journalEntrySchema = z
  .object({
    id,
    no: shortText(64).describe('Gap-free number per organisation and year of date_posting, e.g. JE-2026-0001'),
    // absent from the events of entries posted before year-end closings existed: those were all manual
    kind: z
      .enum(JOURNAL_ENTRY_KINDS)
      .default('manual')
      .describe(
        'manual (posted through this API by hand), year_end_close (the closing of a year, or the reopening that reverses it: POST /v1/accounting/year-end-closings; left out of the profit and loss account), fx_revaluation (a revaluation of foreign-currency items and its reversal: POST /v1/accounting/fx-revaluations), fx_settlement (the exchange difference of a credit note or vendor credit applied to a document converted at another rate, reference <side>_credit_allocation:<id>), depreciation (a month of fixed assets\' depreciation: POST /v1/accounting/depreciation-runs) or fixed_asset (an asset put into use from 042, or disposed of)',
      ),
    date_posting: isoDate,
    description: z.string(),
    reference: z.string().nullable(),
    currency: currencyCode.describe('The legal currency: every figure of the entry is in it'),
    total: moneyAggregate.describe('Σ debit = Σ credit'),
    lines: z.array(journalLineSchema),
    reverses: nullish(entryLink).describe('The entry this one reverses'),
    reversed_by: nullish(entryLink).describe('The entry that reverses this one'),
    created_at: isoDateTime,
    created_by: z.string().describe('The credential that posted it, as the access log names it: key:<id> (an API key) or client:<client_id> (the access token of an API client)'),
  })
  .meta({
    id: 'JournalEntry',
    description: 'A posted journal entry, made by hand or by the closing of a year (kind); its ledger entry is GET /v1/accounting/transactions?source_type=journal_entry&source_id={id}',
  });
export type JournalEntry = z.infer<typeof journalEntrySchema>;

export const journalEntryListQuerySchema = z.object({
  date_posting: rangeQuery('date').optional(),
  kind: z.enum(JOURNAL_ENTRY_KINDS).optional().describe('manual: the entries posted by hand; year_end_close: closings of years and their reopenings; fx_revaluation: revaluations and their reversals; fx_settlement: exchange differences of set-offs'),
  ...keysetPagingQuery(100),
  search: searchQuery.optional().describe('Case-insensitive substring over number, description or reference'),
  sort: sortQuery.optional().describe('id, no, date_posting, total, created_at; -field descending (default date_posting, then id)'),
});
export const journalEntryPageSchema = keysetPagedEnvelope(journalEntrySchema);

// --- year-end closing ---------------------------------------------------------------------------

/** The account classes 5 and 6 are closed to within the closing entry, and the one their balance, the year's result, is carried to. */
export const PROFIT_AND_LOSS_ACCOUNT = '710';
export const RESULT_ACCOUNT = '431';

export const yearEndClosingRequestSchema = z
  .object({
    year: z.int().min(1900).max(9999).describe('The calendar year to close; its 31 December must be on or before the organisation’s lock_date (409 period_open)'),
  })
  .meta({ id: 'YearEndClosingRequest', description: 'The year to close' });
export type YearEndClosingRequest = z.infer<typeof yearEndClosingRequestSchema>;

export const yearEndClosingPathSchema = z.object({
  year: z.coerce.number().int().min(1900).max(9999).describe('The closed year'),
});

export const yearEndClosingSchema = z
  .object({
    year: z.int(),
    status: z.enum(['closed', 'reopened']).describe('closed, or reopened (its closing entry reversed, the year can be closed again)'),
    date_posting: isoDate.describe('31 December of the year: the day the closing entry posts on'),
    currency: currencyCode.describe('The legal currency'),
    revenue: moneyAggregate.describe('The balance of class 6 closed to 710'),
    expenses: moneyAggregate.describe('The balance of class 5 closed to 710'),
    profit: moneyAggregate.describe('revenue − expenses: carried from 710 to 431 (a loss negative)'),
    journal_entry: entryLink.describe('The closing entry: GET /v1/accounting/journal-entries/{id}'),
    reopened_by: nullish(entryLink).describe('The entry that reversed the closing'),
    created_at: isoDateTime,
    created_by: z.string().describe('The credential that closed the year'),
  })
  .meta({
    id: 'YearEndClosing',
    description: 'A closed year: every account of classes 5 and 6 closed to 710 on 31 December and the result carried to 431, in one journal entry',
  });
export type YearEndClosing = z.infer<typeof yearEndClosingSchema>;

export const yearEndClosingListQuerySchema = z.object({ ...pagingQuery(100) });
export const yearEndClosingPageSchema = pagedEnvelope(yearEndClosingSchema);

// --- revaluation of foreign-currency items -----------------------------------------------------

export const fxRevaluationRequestSchema = z
  .object({
    date: isoDate.describe('The day to revalue at (usually 31 December): the rates in force that day, the items open at its end. Not within the lock date (409 period_locked)'),
  })
  .meta({ id: 'FxRevaluationRequest', description: 'The day of a revaluation' });
export type FxRevaluationRequest = z.infer<typeof fxRevaluationRequestSchema>;

export const fxRevaluationLineSchema = z
  .object({
    kind: z.enum(['receivable', 'payable', 'bank']).describe('An open sales document (311), an open purchase document (321), or a bank account’s balance (221)'),
    document: nullish(z.object({ type: z.string(), id, no: shortText(64) })).describe('The open document (receivable, payable)'),
    account_number: nullish(shortText(64)).describe('The bank account (bank)'),
    gl_account: shortText(32).describe('The ledger account revalued'),
    currency: currencyCode,
    amount: moneyAggregate.describe('Open at the end of the day, in currency (a credit note or vendor credit negative)'),
    rate: positiveRate.describe('The rate in force on the day, for rate_amount units'),
    rate_amount: z.int(),
    rate_date: isoDate.describe('The day the rate was published for'),
    rate_source: z.enum(['cnb', 'ecb', 'manual']),
    booked: moneyAggregate.describe('The legal value the ledger held for the item'),
    revalued: moneyAggregate.describe('round(amount × rate / rate_amount)'),
    difference: moneyAggregate.describe('revalued − booked'),
    result: moneyAggregate.describe('The difference as a gain (663, positive) or a loss (563, negative)'),
  })
  .meta({ id: 'FxRevaluationLine', description: 'One foreign-currency item valued again' });

export const fxRevaluationSchema = z
  .object({
    date: isoDate,
    currency: currencyCode.describe('The legal currency'),
    gain: moneyAggregate.describe('Σ of the gains, posted to 663'),
    loss: moneyAggregate.describe('Σ of the losses, posted to 563'),
    lines: z.array(fxRevaluationLineSchema),
    journal_entry: nullish(entryLink).describe('The revaluation’s journal entry (kind fx_revaluation), posted on date; null when nothing moved'),
    reversed_by: nullish(entryLink).describe('Its reversal, posted on the next day'),
    created_at: isoDateTime,
    created_by: z.string(),
  })
  .meta({
    id: 'FxRevaluation',
    description:
      'Open foreign-currency receivables, payables and bank balances valued at the rates in force on a day: one journal entry on that day (differences to 563 and 663), reversed on the next day',
  });
export type FxRevaluation = z.infer<typeof fxRevaluationSchema>;
