import type { EntityManager } from '@mikro-orm/postgresql';
import { documentFindBatchRequestSchema, type DocumentFindAnswer } from '@ledgerline/contracts';
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

/**
 * Open proformas, found by the same clues when no invoice fits, or when one fits only by its amount
 * and the proforma by its variable symbol or reference (decision 236): their own series keeps their
 * variable symbols apart from invoices'.
 */
export const OPEN_PROFORMAS: OpenDocumentTable = { ...OPEN_INVOICES, kind: `doc_type = 'sales_proforma'` };

export async function findPaidInvoices(em: EntityManager, raw: unknown, orgId: number): Promise<{ answers: DocumentFindAnswer[] }> {
  const { answers } = await answerDocumentFinds(em, orgId, OPEN_INVOICES, raw, 'sales_invoice', (id) => lookupDocument(em, { type: 'sales_invoice', id }, orgId));
  const { movements } = documentFindBatchRequestSchema.parse(raw);
  // a proforma its variable symbol or reference names wins over an invoice found only by its amount
  const unfound = answers.flatMap((a, i) => (a.found && a.matched_by !== 'amount' ? [] : [i]));
  if (unfound.length === 0) return { answers };
  const proformas = await answerDocumentFinds(em, orgId, OPEN_PROFORMAS, { movements: unfound.map((i) => movements[i]) }, 'sales_invoice', (id) =>
    lookupDocument(em, { type: 'sales_proforma', id }, orgId),
  );
  unfound.forEach((i, j) => {
    const proforma = proformas.answers[j];
    if (proforma.found && (!answers[i].found || proforma.matched_by !== 'amount')) answers[i] = proforma;
  });
  return { answers };
}
