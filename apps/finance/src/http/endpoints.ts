import { defersTransaction, keysetPage, page, postingSettingsOf, type EndpointHandlers } from '@ledgerline/service-kit';
import { bankTransactionView, listBankTransactions, matchBankTransaction, recordBankTransaction, unmatchBankTransaction } from '../domain/bank-transactions.js';
import { findStatement, importBankStatements, listStatements, statementSummary, statementView } from '../domain/statements/import-statement.js';
import { createPayout, listPayouts, payoutView, readPayout, replacePayout } from '../domain/payouts.js';

/** Bank transactions (POST /v1/finance/bank/transactions, their list, matching one later or taking a match back), bank statements (import, list, read) and payouts (create, read, PUT /v1/finance/payouts/{id} replace, GET /v1/finance/payouts list). */
export function financeEndpoints(): EndpointHandlers<'finance'> {
  return {
    // reads until its one write, which commits with its events (`ctx.writeLast`)
    recordBankTransaction: defersTransaction(async ({ ctx, input }) => recordBankTransaction(ctx, input.body)),
    listBankTransactions: async ({ ctx, input: { query: q } }) => {
      const listed = await listBankTransactions(ctx.em, ctx.orgId, q);
      return keysetPage(listed.rows.map(bankTransactionView), listed, q);
    },
    matchBankTransaction: async ({ ctx, input }) => matchBankTransaction(ctx, input.params.id, input.body),
    unmatchBankTransaction: async ({ ctx, input }) => unmatchBankTransaction(ctx, input.params.id),
    // the file is read as the bytes it came as (its charset is the format's), never as the contract's text
    importBankStatement: async ({ ctx, input }) => importBankStatements(ctx, input.raw, input.query),
    listBankStatements: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listStatements(ctx.em, q);
      return page(rows.map(statementSummary), total, q.from, q.take);
    },
    getBankStatement: async ({ ctx, input }) => statementView(ctx, await findStatement(ctx, input.params.id)),
    createPayout: async ({ ctx, input }) => createPayout(ctx, input.body),
    listPayouts: async ({ ctx, input: { query: q } }) => {
      const listed = await listPayouts(ctx.em, ctx.orgId, q);
      const { lockDate } = await postingSettingsOf(ctx);
      return keysetPage(
        listed.rows.map((p) => payoutView(p, lockDate)),
        listed,
        q,
      );
    },
    getPayout: async ({ ctx, input }) => payoutView(await readPayout(ctx, input.params.id), (await postingSettingsOf(ctx)).lockDate),
    replacePayout: async ({ ctx, input }) => {
      // Unknown id first (404), then the body (400/422), then the lock (409).
      await readPayout(ctx, input.params.id);
      return replacePayout(ctx, input.params.id, input.body);
    },
  };
}
