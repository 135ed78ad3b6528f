import { z } from 'zod';
import { int64, longText, nullish, shortText } from './common.js';
import { pagedEnvelope, pagingQuery, rangeQuery, searchQuery } from './paging.js';
import { journalAccountNumber } from './journal-entries.js';

/*
 * The chart of accounts (decision 166): the accounts every organisation starts with and those it
 * adds or renames. Names are what the ledger, the trial balance and journal entries show; an
 * account's number never changes, and any number may be posted to (an unnamed one shows as
 * "Account <number>").
 */

export const chartAccountSchema = z
  .object({
    id: nullish(int64).describe('Null for a default account the organisation has not posted to yet'),
    number: shortText(32),
    name: z.string().describe('In the language of Accept-Language (cs-* Czech, else English)'),
    name_cs: z.string(),
    name_en: z.string(),
    description: z.string().nullable(),
    is_default: z.boolean().describe('Whether the account is one of the chart every organisation starts with'),
  })
  .meta({ id: 'ChartAccount', description: 'An account of the chart' });
export type ChartAccountView = z.infer<typeof chartAccountSchema>;

export const chartAccountPathSchema = z.object({ number: journalAccountNumber });

export const chartAccountRequestSchema = z
  .object({
    name_cs: shortText(255).min(1).describe('Czech name'),
    name_en: shortText(255).min(1).optional().describe('English name; the Czech one when absent'),
    description: nullish(longText()),
  })
  .meta({ id: 'ChartAccountRequest', description: 'An account to add, or the new names of an existing one' });
export type ChartAccountRequest = z.infer<typeof chartAccountRequestSchema>;

export const chartAccountListQuerySchema = z.object({
  account_number: rangeQuery('string').optional().describe('A number or a range of numbers, compared as text: 343, [500;599], [5;6]'),
  search: searchQuery.optional().describe('Case-insensitive substring over number and names'),
  ...pagingQuery(1000),
});
export const chartAccountPageSchema = pagedEnvelope(chartAccountSchema);
