import type { AdvanceTaxDocumentListQuery, Contact, FinancePaymentMatchedEvent } from '@ledgerline/contracts';
import { BusinessRuleError, dec, keysetPageOfJson, postingSettingsOf, sqlRows, toWire, where, type OperationContext, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { labelsFor } from '@ledgerline/rendering';
import { listSalesDocuments } from '../sales-documents/list.js';
import { postSalesDocument } from '../sales-documents/post.js';
import { viewTextOfRow } from '../sales-documents/view.js';
import { advanceShares, taxableAdvance, type RecapRate } from './advance-shares.js';
import { ADVANCE_TAX_DOCUMENTS, type AdvanceTaxDocumentRequest } from './kinds.js';
import { emitProforma, readProforma } from './proformas.js';

/*
 * The tax document on a payment received for a proforma (daňový doklad k přijaté platbě, §28
 * ZDPH): a VAT payer owes the VAT of an advance on the day it is received. Issued by the consumer
 * that applies the payment, in its transaction: what the proforma's payments (up to its total)
 * should have declared, less what its earlier tax documents declared, split over its rates. A
 * refund declares a negative amount; an overpayment nothing until it is deducted.
 */

/** What the proforma's tax documents have declared in all, VAT included. */
async function accountedSoFar(scope: TenantScope, proformaId: number) {
  const [row] = await sqlRows<{ accounted: string }>(
    scope.em,
    `select coalesce(sum((body::json->'payment'->>'accounted_amount')::numeric), 0)::text as accounted
       from sales_documents where org_id = ? and proforma_id = ? and doc_type = 'sales_advance_tax_document'`,
    [scope.orgId, proformaId],
  );
  return dec(row.accounted);
}

/** The item line's words: "Payment for proforma PF269000001" in the proforma's language. */
function lineName(view: Record<string, unknown>, proformaNo: string) {
  const culture = (typeof view.document_locale === 'string' && view.document_locale) || (typeof view.culture === 'string' && view.culture) || 'cs-CZ';
  return `${labelsFor(culture).proforma_no ?? 'Payment for proforma'} ${proformaNo}`;
}

/**
 * After a payment of a proforma is applied: a VAT payer's tax document for what it changes, then
 * the proforma's `updated` event. Nothing is declared on a proforma already settled or cancelled
 * (money arriving then is held on 324 as it is, for a refund).
 */
export async function afterProformaPayment(ctx: OperationContext, proformaId: number, payment: FinancePaymentMatchedEvent): Promise<void> {
  const tenant = ctx as TenantContext;
  const view = await readProforma(tenant, proformaId);
  const settings = await postingSettingsOf(tenant);
  if (settings.isVatPayer && view.status !== 'settled' && view.status !== 'cancelled') {
    const accounted = taxableAdvance(String(view.amount_paid), String(view.total_amount));
    const delta = accounted.minus(await accountedSoFar(tenant, proformaId));
    const shares = advanceShares(delta, view.taxes as RecapRate[], Number(view.precision ?? 2));
    if (shares.length > 0) await issueTaxDocument(tenant, view, shares, { ...payment, accounted_amount: toWire(delta.toString())! });
  }
  await emitProforma(ctx, proformaId, 'updated');
}

async function issueTaxDocument(
  ctx: TenantContext,
  view: Record<string, unknown>,
  shares: ReturnType<typeof advanceShares>,
  payment: FinancePaymentMatchedEvent & { accounted_amount: number },
) {
  const proformaNo = String(view.no);
  const request: AdvanceTaxDocumentRequest = {
    customer: view.customer as Contact,
    currency: String(view.currency),
    precision: Number(view.precision ?? 2),
    date_issued: payment.date,
    date_taxable: payment.date,
    // the rate a VAT payer's tax is converted at is the one of the day the tax falls due: the table's
    fx_rate: null,
    billing_address: (view.billing_address as AdvanceTaxDocumentRequest['billing_address']) ?? null,
    bank_account: (view.bank_account as AdvanceTaxDocumentRequest['bank_account']) ?? null,
    org: (view.org as AdvanceTaxDocumentRequest['org']) ?? null,
    culture: (view.culture as string | null) ?? null,
    document_locale: (view.document_locale as string | null) ?? null,
    template_layout: (view.template_layout as string | null) ?? null,
    payment_reference: typeof view.variable_symbol === 'string' && view.variable_symbol ? view.variable_symbol : null,
    taxes_included: true,
    rounding_increment: null,
    items: shares.map((s) => ({
      title: lineName(view, proformaNo),
      qty: 1,
      rate: toWire(s.gross.toString())!,
      taxes: [{ tax_rate: Number(s.tax_rate), tax_code: s.tax_code, tax_name: s.tax_name, rate_type: s.rate_type }],
    })),
    proforma_id: Number(view.id),
    proforma_no: proformaNo,
    payment: { payment_id: payment.payment_id, source: payment.source, date: payment.date, amount: payment.amount, accounted_amount: payment.accounted_amount },
  } as AdvanceTaxDocumentRequest;
  try {
    await postSalesDocument(ctx, ADVANCE_TAX_DOCUMENTS, request, { proformaId: Number(view.id) });
  } catch (e) {
    // no table rate for the payment's day: the proforma's own rate, rather than a payment never declared
    if (!(e instanceof BusinessRuleError) || e.code !== 'fx_rate_required' || view.fx_rate == null) throw e;
    await postSalesDocument(ctx, ADVANCE_TAX_DOCUMENTS, { ...request, fx_rate: Number(view.fx_rate), currency_coef: (view.currency_coef as number | null) ?? null }, { proformaId: Number(view.id) });
  }
}

export async function listAdvanceTaxDocuments(scope: TenantScope, q: AdvanceTaxDocumentListQuery) {
  const listed = await listSalesDocuments(scope.em, scope.orgId, 'sales_advance_tax_document', q, {
    conditions: q.proforma_id != null ? [where.eq('proforma_id', q.proforma_id)] : [],
  });
  return keysetPageOfJson(listed.rows.map(viewTextOfRow), listed, q);
}
