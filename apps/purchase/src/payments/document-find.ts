import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentFindAnswer } from '@ledgerline/contracts';
import { answerDocumentFinds, type OpenDocumentTable } from '@ledgerline/posted-documents';
import { lookupDocument } from './document-lookup.js';

/*
 * `rpc.purchase.document.find` (bank statements, issue 17): for each movement of money out, the one
 * open vendor bill it pays, by the clues the kit's finder tries in order. A bill's variable symbol is the
 * vendor's, kept as its payment reference when that is 1–10 digits; the account it is paid to is
 * the bank account the bill names.
 */

export const OPEN_BILLS: OpenDocumentTable = {
  table: 'purchase_documents',
  // an advance bill is paid as a bill is (answered as purchase_advance)
  kind: `kind in ('bill', 'advance')`,
  variableSymbol: `case when coalesce(payment_reference, '') ~ '^[0-9]{1,10}$' then ltrim(payment_reference, '0') end`,
  paymentReference: 'payment_reference',
  contactId: `case when vendor->>'id' ~ '^[0-9]{1,15}$' then (vendor->>'id')::bigint end`,
  counterpartyAccount: 'bank_account_number',
};

export async function findPaidBills(em: EntityManager, raw: unknown, orgId: number): Promise<{ answers: DocumentFindAnswer[] }> {
  return answerDocumentFinds(em, orgId, OPEN_BILLS, raw, 'purchase_bill', (id) => lookupDocument(em, { type: 'purchase_bill', id }, orgId));
}
