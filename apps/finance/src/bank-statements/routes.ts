import { page, type EndpointHandlers } from '@ledgerline/service-kit';
import { findStatement, importBankStatements, listStatements, statementSummary, statementView } from '../domain/statements/import-statement.js';

/** Bank statements: a bank's file imported, their list, one read. */
export function bankStatementRoutes(): Pick<EndpointHandlers<'finance'>, 'importBankStatement' | 'listBankStatements' | 'getBankStatement'> {
  return {
    // the file is read as the bytes it came as (its charset is the format's), never as the contract's text
    importBankStatement: async ({ ctx, input }) => importBankStatements(ctx, input.raw, input.query),
    listBankStatements: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listStatements(ctx.em, q);
      return page(rows.map(statementSummary), total, q.from, q.take);
    },
    getBankStatement: async ({ ctx, input }) => statementView(ctx, await findStatement(ctx, input.params.id)),
  };
}
