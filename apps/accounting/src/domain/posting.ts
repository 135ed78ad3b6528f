/*
 * Pure posting rules: a source document (as its event carries it) → one balanced ledger entry in
 * the legal currency. Stored `_leg` figures are used as they are and summed, never recomputed;
 * only a document that lacks them is converted with its own fx rate. The rules live under
 * posting/, split by seam; this is what the rest of the service uses.
 */
export {
  MissingLegalFiguresError,
  UnbalancedEntryError,
  type DraftRow,
  type DraftTaxRow,
  type LedgerEntryDraft,
  type PostingOptions,
  type SourceRef,
} from './posting/entry.js';
export { fxDifference, paymentFxRates } from './posting/conversions.js';
export { assertBalanced, counterAccount, postingRows, sums, type FigurePart, type FigureValues, type RowDefaults } from './posting/interpreter.js';
export { isReverseCharge, lineCategory, supplyKind } from './posting/document-figures.js';
export { ledgerEntryForPurchaseDocument, ledgerEntryForSalesDocument } from './posting/documents.js';
export { ledgerEntryForBankTransaction, ledgerEntryForPayout, reversalOf } from './posting/payments.js';
export { JOURNAL_ROLE, ledgerEntryForJournal } from './posting/journal.js';
