import { SUBJECTS, type CreditNoteAllocation, type CreditNoteRequest } from '@ledgerline/contracts';
import { BusinessRuleError } from '@ledgerline/service-kit';
import { type AllocationRule, type CreditRule } from '@ledgerline/posted-documents';
import type { SalesDocumentKind } from '../sales-documents/post.js';

/** Same customer: by id when both carry one, else by name and VAT number. */
export function sameCustomer(a: Record<string, unknown> | null | undefined, b: Record<string, unknown> | null | undefined): boolean {
  if (!a || !b) return false;
  if (a.id != null && b.id != null) return Number(a.id) === Number(b.id);
  const norm = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : '');
  return norm(a.business_name) === norm(b.business_name) && norm(a.vat_no) === norm(b.vat_no) && norm(a.business_name) !== '';
}

/** A credit note credits an invoice of the same organisation, customer and currency, up to its total. */
export const CREDITED_INVOICE: CreditRule = {
  table: 'sales_documents',
  kindColumn: 'doc_type',
  credited: 'sales_invoice',
  credit: 'sales_credit_note',
  party: `d.body->'customer'`,
  sameParty: sameCustomer,
  words: { credit: 'credit note', credited: 'invoice', creditsPlural: 'Credit notes' },
  notFound: (id) =>
    new BusinessRuleError(`Invoice ${id} does not exist`, 'credited_invoice_not_found', [
      { path: 'credited_doc_id', message: 'no such invoice in this organisation', code: 'credited_invoice_not_found' },
    ]),
  otherParty: () =>
    new BusinessRuleError('A credit note must have the customer of the invoice it credits', 'customer_mismatch', [
      { path: 'customer', message: 'differs from the customer of the credited invoice', code: 'customer_mismatch' },
    ]),
  exceedsCode: 'credit_exceeds_invoice',
};

/** The credit note as a sales document kind: its own fields name the credited invoice. */
export const CREDIT_NOTES: SalesDocumentKind<'sales_credit_note', CreditNoteRequest> = {
  docType: 'sales_credit_note',
  subject: SUBJECTS.salesCreditNotePosted,
  label: 'credit note',
  rendering: 'credit_note',
  fileName: 'Credit-note',
  credits: { rule: CREDITED_INVOICE, creditedId: (input) => input.credited_doc_id, creditedNo: (input) => input.credited_doc_no },
  ownFields: (input, credited) => ({
    credited_doc_id: credited?.id ?? null,
    credited_doc_no: credited?.no ?? null,
    buyer_reference: input.buyer_reference ?? null,
    order_reference: input.order_reference ?? null,
  }),
};

/** A credit note is applied to an open invoice of its customer, in its currency (decision 148; at other rates, decision 207). */
export const CREDIT_NOTE_ALLOCATIONS: AllocationRule<CreditNoteAllocation> = {
  table: 'sales_documents',
  kindColumn: 'doc_type',
  credit: 'sales_credit_note',
  target: 'sales_invoice',
  party: `d.body->'customer'`,
  sameParty: sameCustomer,
  rates: `concat_ws('/', d.body->>'fx_rate', d.body->>'tax_fx_rate')`,
  totalLeg: `d.body->>'total_amount_leg'`,
  side: 'receivable',
  allocations: 'sales_credit_allocations',
  touchColumn: 'updated_at',
  words: { credit: 'credit_note', target: 'invoice', creditLabel: 'credit note', targetLabel: 'invoice', party: 'customer' },
  creditNotFound: 'credit_note_not_found',
  targetNotFound: 'invoice_not_found',
  subject: SUBJECTS.salesCreditAllocationRecorded,
};
