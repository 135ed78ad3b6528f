import type {
  AccountingJournalEntryPostedEvent,
  FinanceBankTransactionRecordedEvent,
  FinancePayoutPostedEvent,
  PurchaseAdvanceTaxDocumentPostedEvent,
  PurchaseBillPostedEvent,
  PurchaseVendorCreditPostedEvent,
  SalesAdvanceTaxDocumentPostedEvent,
  SalesCreditNotePostedEvent,
  SalesInvoicePostedEvent,
} from '@ledgerline/contracts';

/*
 * The documents the posting rules read are the producers' event contracts, nothing of the ledger's
 * own: a live event is parsed once with its contract schema (`events/ledger-events.ts`), and the
 * rules are typed by the contract's output, so a rule reading a field no producer declares does
 * not compile, and a producer changing a field it declares breaks the ledger's build, not its
 * postings.
 */

export type SalesDocument = SalesInvoicePostedEvent | SalesCreditNotePostedEvent | SalesAdvanceTaxDocumentPostedEvent;
export type PurchaseDocument = PurchaseBillPostedEvent | PurchaseVendorCreditPostedEvent | PurchaseAdvanceTaxDocumentPostedEvent;
export type BankTransactionDocument = FinanceBankTransactionRecordedEvent;
export type PayoutDocument = FinancePayoutPostedEvent;
export type JournalDocument = AccountingJournalEntryPostedEvent;
export type PayoutLineDocument = PayoutDocument['lines'][number];

/** A tax line of a document's recap or of one of its items (the same contract shape in both services). */
export type TaxLine = SalesDocument['taxes'][number] | PurchaseDocument['taxes'][number];
export type DocumentItem = SalesDocument['items'][number] | PurchaseDocument['items'][number];

/** The credited document of a credit (credit note, vendor credit); null for an invoice or bill. */
export function creditedDocument(doc: SalesDocument | PurchaseDocument): { id: number | null; no: string | null } {
  return 'credited_doc_id' in doc ? { id: doc.credited_doc_id ?? null, no: doc.credited_doc_no ?? null } : { id: null, no: null };
}
