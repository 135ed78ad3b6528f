import { z } from 'zod';
import { centAmount, currencyCode, id, int32, isoDate, isoDateTime, moneyAggregate, nullish, pagedEnvelope, pagingQuery, rangeQuery, searchQuery, shortText, sortQuery } from './common.js';

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

export const journalEntrySchema = z
  .object({
    id,
    no: shortText(64).describe('Gap-free number per organisation and year of date_posting, e.g. JE-2026-0001'),
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
    description: 'A posted manual journal entry; its ledger entry is GET /v1/accounting/transactions?source_type=journal_entry&source_id={id}',
  });
export type JournalEntry = z.infer<typeof journalEntrySchema>;

export const journalEntryListQuerySchema = z.object({
  date_posting: rangeQuery('date').optional(),
  ...pagingQuery(100),
  search: searchQuery.optional().describe('Case-insensitive substring over number, description or reference'),
  sort: sortQuery.optional().describe('id, no, date_posting, total, created_at; -field descending (default date_posting, then id)'),
});
export const journalEntryPageSchema = pagedEnvelope(journalEntrySchema);
