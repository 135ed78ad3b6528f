import { openForeignRequestSchema, type OpenForeignDocumentsAnswer } from '@ledgerline/contracts';
import { legalCurrencyOf, type TenantScope } from '@ledgerline/service-kit';
import { openAmountLeg, openForeignDocuments } from '@ledgerline/posted-documents';
import type { StoredTaxLine } from '../db/entities.js';
import { purchaseTotalLeg } from '../payments/document-lookup.js';
import { AGED_PAYABLES } from './routes.js';

/**
 * `rpc.purchase.documents.open_foreign` (a year-end revaluation): the bills and vendor credits in
 * a foreign currency open at the end of the day, with the legal value 321 still holds for each.
 */
export async function openForeignPurchaseDocuments(scope: TenantScope, raw: unknown): Promise<OpenForeignDocumentsAnswer> {
  const { date } = openForeignRequestSchema.parse(raw);
  const rows = await openForeignDocuments<{ taxes: StoredTaxLine[]; subtotal: string; tax_fx_rate: string; precision: number }>(scope, AGED_PAYABLES, {
    asOf: date,
    legalCurrency: await legalCurrencyOf(scope),
    extra: { taxes: 'd.taxes', subtotal: 'd.subtotal_amount::text', tax_fx_rate: 'd.tax_fx_rate::text', precision: 'd.precision' },
  });
  return {
    documents: rows.map((r) => {
      const totalLeg = purchaseTotalLeg({ taxes: r.extra.taxes, subtotalAmount: r.extra.subtotal, taxFxRate: r.extra.tax_fx_rate, precision: r.extra.precision });
      return {
        type: r.kind === 'vendor_credit' ? 'purchase_vendor_credit' : 'purchase_bill',
        id: r.id,
        no: r.no,
        currency: r.currency,
        open_amount: r.open_amount,
        open_amount_leg: openAmountLeg({ total: r.total_amount, totalLeg, open: r.open_amount }),
      };
    }),
  };
}
