import { defersTransaction, type EndpointHandlers } from '@ledgerline/service-kit';
import { allocateCredit, listAllocations, removeAllocation } from '@ledgerline/posted-documents';
import type { Delivery } from '../delivery.js';
import { numberTaken } from '../numbering-series/series.js';
import { salesDocumentOperations } from '../sales-documents/operations.js';
import { CREDIT_NOTE_ALLOCATIONS, CREDIT_NOTES } from './credit-note-kind.js';

type CreditNoteOperations = 'createCreditNote' | 'listCreditNotes' | 'getCreditNote' | 'getCreditNoteHtml' | 'getCreditNotePdf' | 'getCreditNoteUbl' | 'getCreditNoteIsdoc' | 'checkCreditNoteNo'
  | 'allocateCreditNote'
  | 'listCreditNoteAllocations'
  | 'removeCreditNoteAllocation';

/** `/v1/sales/credit-notes…` and their HTML, PDF, Peppol UBL and ISDOC: the credit-note kind on the shared operations, plus the number check and allocations to invoices. */
export function creditNoteRoutes(delivery: Delivery): Pick<EndpointHandlers<'sales'>, CreditNoteOperations> {
  const op = salesDocumentOperations(CREDIT_NOTES, delivery);
  return {
    createCreditNote: defersTransaction(({ ctx, input }) => op.create(ctx, input.body, input.query.strict)),
    listCreditNotes: ({ ctx, input }) => op.list(ctx, input.query),
    getCreditNote: ({ ctx, input }) => op.get(ctx, input.params.id),
    getCreditNoteHtml: ({ ctx, input }) => op.html(ctx, input.params.id, input.query),
    getCreditNotePdf: ({ ctx, input }) => op.pdf(ctx, input.params.id, input.query),
    getCreditNoteUbl: ({ ctx, input }) => op.ubl(ctx, input.params.id),
    getCreditNoteIsdoc: ({ ctx, input }) => op.isdoc(ctx, input.params.id),
    allocateCreditNote: ({ ctx, input: { params, body } }) =>
      allocateCredit(ctx, CREDIT_NOTE_ALLOCATIONS, params.id, { targetId: body.invoice_id, amount: body.amount, date: body.date }),
    listCreditNoteAllocations: ({ ctx, input: { params, query } }) => listAllocations(ctx, CREDIT_NOTE_ALLOCATIONS, 'credit', params.id, query),
    removeCreditNoteAllocation: ({ ctx, input: { params } }) => removeAllocation(ctx, CREDIT_NOTE_ALLOCATIONS, params.id, params.allocation_id),
    checkCreditNoteNo: async ({ ctx, input: { query: q } }) => {
      const no = q.no?.trim();
      if (!no) return { exists: false, ids: [] };
      const ids = await numberTaken(ctx, 'sales_credit_note', no, q.exclude_id ?? []);
      return { exists: ids.length > 0, ids };
    },
  };
}
