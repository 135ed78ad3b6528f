import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentFindAnswer } from '@ledgerline/contracts';
import { answerDocumentFinds, type OpenDocumentTable } from '@ledgerline/posted-documents';
import { lookupDocument } from './document-lookup.js';

/*
 * `rpc.sales.document.find` (bank statements, issue 17): for each movement of money in, the one
 * open invoice it pays, by the clues the kit's finder tries in order. An invoice's variable symbol
 * is the one it prints: its payment reference when that is 1–10 digits, else the last ten digits
 * of its number (`documentVariableSymbol`, written here in SQL).
 */

export const OPEN_INVOICES: OpenDocumentTable = {
  table: 'sales_documents',
  kind: `doc_type = 'sales_invoice'`,
  variableSymbol: `ltrim(case when coalesce(payment_reference, '') ~ '^[0-9]{1,10}$' then payment_reference
    else right(regexp_replace(no, '[^0-9]', '', 'g'), 10) end, '0')`,
  paymentReference: 'payment_reference',
  contactId: 'customer_id',
};

export async function findPaidInvoices(em: EntityManager, raw: unknown, orgId: number): Promise<{ answers: DocumentFindAnswer[] }> {
  return answerDocumentFinds(em, orgId, OPEN_INVOICES, raw, 'sales_invoice', (id) => lookupDocument(em, { type: 'sales_invoice', id }, orgId));
}
