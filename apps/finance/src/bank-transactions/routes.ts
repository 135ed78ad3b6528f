import { defersTransaction, keysetPage, type EndpointHandlers } from '@ledgerline/service-kit';
import { bankTransactionView, listBankTransactions, matchBankTransaction, recordBankTransaction, unmatchBankTransaction } from '../domain/bank-transactions.js';

/** Bank transactions: POST /v1/finance/bank/transactions, their list, matching one later or taking a match back. */
export function bankTransactionRoutes(): Pick<EndpointHandlers<'finance'>, 'recordBankTransaction' | 'listBankTransactions' | 'matchBankTransaction' | 'unmatchBankTransaction'> {
  return {
    // reads until its one write, which commits with its events (`ctx.writeLast`)
    recordBankTransaction: defersTransaction(async ({ ctx, input }) => recordBankTransaction(ctx, input.body)),
    listBankTransactions: async ({ ctx, input: { query: q } }) => {
      const listed = await listBankTransactions(ctx.em, ctx.orgId, q);
      return keysetPage(listed.rows.map(bankTransactionView), listed, q);
    },
    matchBankTransaction: async ({ ctx, input }) => matchBankTransaction(ctx, input.params.id, input.body),
    unmatchBankTransaction: async ({ ctx, input }) => unmatchBankTransaction(ctx, input.params.id),
  };
}
