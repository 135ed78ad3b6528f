import { openForeignRequestSchema, type OpenForeignDocumentsAnswer } from '@ledgerline/contracts';
import { legalCurrencyOf, type TenantScope } from '@ledgerline/service-kit';
import { openAmountLeg, openForeignDocuments } from '@ledgerline/posted-documents';
import { AGED_RECEIVABLES } from './routes.js';

/**
 * `rpc.sales.documents.open_foreign` (a year-end revaluation): the invoices and credit notes in a
 * foreign currency open at the end of the day, with the legal value 311 still holds for each.
 */
export async function openForeignSalesDocuments(scope: TenantScope, raw: unknown): Promise<OpenForeignDocumentsAnswer> {
  const { date } = openForeignRequestSchema.parse(raw);
  const rows = await openForeignDocuments<{ total_leg: string | null }>(scope, AGED_RECEIVABLES, {
    asOf: date,
    legalCurrency: await legalCurrencyOf(scope),
    extra: { total_leg: "d.body->>'total_amount_leg'" },
  });
  return {
    documents: rows
      .filter((r) => r.extra.total_leg != null)
      .map((r) => ({
        type: r.kind === 'sales_credit_note' ? 'sales_credit_note' : 'sales_invoice',
        id: r.id,
        no: r.no,
        currency: r.currency,
        open_amount: r.open_amount,
        open_amount_leg: openAmountLeg({ total: r.total_amount, totalLeg: r.extra.total_leg!, open: r.open_amount }),
      })),
  };
}
