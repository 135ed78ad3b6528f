import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentFindAnswer } from '@ledgerline/contracts';
import { findOpenDocument, type OpenDocumentTable } from '@ledgerline/service-kit';
import { lookupDocument } from './document-lookup.js';

/*
 * `rpc.purchase.document.find` (bank statements, issue 17): the one open vendor bill a movement of
 * money out pays, by the clues the kit's finder tries in order. A bill's variable symbol is the
 * vendor's, kept as its payment reference when that is 1–10 digits; the account it is paid to is
 * the bank account the bill names.
 */

const BILLS: OpenDocumentTable = {
  table: 'purchase_documents',
  kind: `kind = 'bill'`,
  variableSymbol: `case when coalesce(payment_reference, '') ~ '^[0-9]{1,10}$' then ltrim(payment_reference, '0') end`,
  paymentReference: 'payment_reference',
  contactId: `case when vendor->>'id' ~ '^[0-9]{1,15}$' then (vendor->>'id')::bigint end`,
  counterpartyAccount: 'bank_account_number',
};

export async function findPaidBill(em: EntityManager, raw: unknown, orgId: number): Promise<DocumentFindAnswer> {
  const found = await findOpenDocument(em, orgId, BILLS, raw);
  if (!found) return { found: false, type: 'purchase_bill', id: null, no: null, total_amount: null, amount_due: null, currency: null, contact: null, matched_by: null };
  return { ...(await lookupDocument(em, { type: 'purchase_bill', id: found.id })), matched_by: found.matchedBy };
}
