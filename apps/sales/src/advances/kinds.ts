import { SUBJECTS, type InvoiceRequest } from '@ledgerline/contracts';
import type { SalesDocumentKind } from '../sales-documents/post.js';

/** A proforma as a sales document kind: numbered and rendered like an invoice, never posted; it records its own events (its view has more than its row). */
export const PROFORMAS: SalesDocumentKind<'sales_proforma', InvoiceRequest> = {
  docType: 'sales_proforma',
  subject: null,
  label: 'proforma invoice',
  rendering: 'proforma',
  fileName: 'Proforma-invoice',
  ownFields: (input) => ({ buyer_reference: input.buyer_reference ?? null, order_reference: input.order_reference ?? null }),
};

/** What an advance tax document is drafted from: an invoice's body for the received amount, the proforma and the payment. */
export type AdvanceTaxDocumentRequest = InvoiceRequest & {
  proforma_id: number;
  proforma_no: string;
  payment: { payment_id: number; source: 'bank_transaction' | 'payout_line'; date: string; amount: number };
};

/** The tax document on a received payment: posted (its VAT, Dr 324 / Cr 343), paid by the payment it declares. */
export const ADVANCE_TAX_DOCUMENTS: SalesDocumentKind<'sales_advance_tax_document', AdvanceTaxDocumentRequest> = {
  docType: 'sales_advance_tax_document',
  subject: SUBJECTS.salesAdvanceTaxDocumentPosted,
  label: 'advance tax document',
  rendering: 'advance_tax_document',
  fileName: 'Advance-tax-document',
  ownFields: (input) => ({ proforma_id: input.proforma_id, proforma_no: input.proforma_no, payment: input.payment }),
  // it documents money already received: nothing is due on it
  deducts: async (_ctx, _input, computed) => ({ paid: computed.total_amount.toString(), own: {}, computed, written: async () => {} }),
};
