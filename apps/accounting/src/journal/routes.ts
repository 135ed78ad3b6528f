import { keysetPage, page, type EndpointHandlers } from '@ledgerline/service-kit';
import { createJournalEntry, listJournalEntries, readJournalEntry, reverseJournalEntry } from '../domain/journal-entries.js';
import { closeYear, listYearEndClosings, reopenYear } from '../domain/year-end-closing.js';
import { revalueForeignItems } from '../domain/fx-revaluation.js';

/** Journal entries: manual ones and their reversal, the closing and reopening of a year, the revaluation of foreign-currency items. */
export function journalRoutes(posting: { legalCurrency: string; orgCountry: string }): Pick<EndpointHandlers<'accounting'>, 'createJournalEntry' | 'listJournalEntries' | 'getJournalEntry' | 'reverseJournalEntry' | 'closeYear' | 'listYearEndClosings' | 'reopenYear' | 'revalueForeignItems'> {
  return {
    createJournalEntry: async ({ ctx, input }) => createJournalEntry(ctx, input.body, posting),
    listJournalEntries: async ({ ctx, input: { query: q } }) => {
      const listed = await listJournalEntries(ctx.em, ctx.orgId, q);
      return keysetPage(listed.rows, listed, q);
    },
    getJournalEntry: async ({ ctx, input }) => readJournalEntry(ctx, input.params.id),
    reverseJournalEntry: async ({ ctx, input }) => reverseJournalEntry(ctx, input.params.id, input.body, posting),
    closeYear: async ({ ctx, input }) => closeYear(ctx, input.body, posting),
    listYearEndClosings: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listYearEndClosings(ctx, q);
      return page(rows, total, q.from, q.take);
    },
    reopenYear: async ({ ctx, input }) => reopenYear(ctx, input.params.year, posting),
    revalueForeignItems: async ({ ctx, input }) => revalueForeignItems(ctx, input.body, posting),
  };
}
