import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentFindAnswer } from '@ledgerline/contracts';
import { findOpenDocument, type OpenDocumentTable } from '@ledgerline/service-kit';
import { lookupDocument } from './document-lookup.js';

/*
 * `rpc.sales.document.find` (bank statements, issue 17): the one open invoice a movement of money
 * in pays, by the clues the kit's finder tries in order. An invoice's variable symbol is the one
 * it prints: its payment reference when that is 1–10 digits, else the last ten digits of its
 * number (`documentVariableSymbol`, written here in SQL).
 */

const INVOICES: OpenDocumentTable = {
  table: 'sales_documents',
  kind: `doc_type = 'sales_invoice'`,
  variableSymbol: `ltrim(case when coalesce(body->>'payment_reference', '') ~ '^[0-9]{1,10}$' then body->>'payment_reference'
    else right(regexp_replace(no, '[^0-9]', '', 'g'), 10) end, '0')`,
  paymentReference: `body->>'payment_reference'`,
  contactId: 'customer_id',
};

export async function findPaidInvoice(em: EntityManager, raw: unknown, orgId: number): Promise<DocumentFindAnswer> {
  const found = await findOpenDocument(em, orgId, INVOICES, raw);
  if (!found) return { found: false, type: 'sales_invoice', id: null, no: null, total_amount: null, amount_due: null, currency: null, contact: null, matched_by: null };
  return { ...(await lookupDocument(em, { type: 'sales_invoice', id: found.id })), matched_by: found.matchedBy };
}
