import type { Dec } from '@ledgerline/service-kit';
import { type SourceType } from '../posting-map.js';
import { type VatReportingFields } from '../vat.js';
import { fxRates, legal } from './conversions.js';

/* Ledger entry drafts: what posting produces (its errors in errors.ts). */

/*
 * Pure posting rules: a source document (as its event carries it) → one balanced ledger entry in
 * the legal currency. Stored `_leg` figures are used as they are and summed, never recomputed;
 * only a document that lacks them is converted with its own fx rate.
 */

export { MissingLegalFiguresError, UnbalancedEntryError } from './errors.js';

export type Json = Record<string, unknown>;

export interface DraftTaxRow extends VatReportingFields {
  debit: Dec;
  credit: Dec;
  gl_account_number: string;
  description: string | null;
  currency: string | null;
  tax_rate: Dec | null;
  tax_rate_rc: Dec | null;
  is_reverse_charge: boolean;
  tax_index: number | null;
  tax_code: string | null;
  tax_name: string | null;
  tax_base_in: Dec | null;
  tax_base_in_leg: Dec | null;
  tax_base_out: Dec | null;
  tax_base_out_leg: Dec | null;
  tax_amount_in: Dec | null;
  tax_amount_in_leg: Dec | null;
  tax_amount_claim: Dec | null;
  tax_amount_claim_leg: Dec | null;
  tax_amount_out: Dec | null;
  tax_amount_out_leg: Dec | null;
  tax_deduction_ratio: Dec | null;
  net_deduction_ratio: Dec | null;
}

export interface DraftRow {
  role: string;
  gl_account_number: string;
  debit: Dec;
  credit: Dec;
  description: string | null;
  currency: string | null;
  payment_amount: Dec | null;
  payment_reference: string | null;
  contact: Json | null;
  paid_record: Json | null;
  tax_deduction_ratio: Dec | null;
  net_deduction_ratio: Dec | null;
  taxes: DraftTaxRow[];
}

export interface SourceRef {
  type: SourceType;
  id: number;
  version: number;
  no: string | null;
}

export interface LedgerEntryDraft {
  type: SourceType | 'reversal';
  source: SourceRef;
  entry_kind: 'posting' | 'reversal';
  date_posting: string;
  no: string | null;
  vendor_doc_no: string | null;
  credited_doc_no: string | null;
  payment_reference: string | null;
  description: string | null;
  date_issued: string | null;
  date_due: string | null;
  date_taxable: string | null;
  date_tax_applied: string | null;
  currency: string;
  legal_currency: string;
  precision: number;
  transaction_type: Json | null;
  contact: Json | null;
  bank_account: Json | null;
  tax_nexus: Json | null;
  paid_record: Json | null;
  fx_rates: Array<{ rate: number; currency: string; source: string }>;
  tax_deduction_ratio: Dec | null;
  net_deduction_ratio: Dec | null;
  amount_paid: Dec | null;
  amount_due: Dec | null;
  /** Σ debit = Σ credit of the rows. */
  total: Dec;
  rows: DraftRow[];
}

export interface PostingOptions {
  /** Legal currency when the event does not name it. */
  legalCurrency: string;
  /** Country of the organisation when the document does not carry it (VAT reporting). */
  orgCountry?: string;
  /** Posting date when the document has none (payouts): the event's date. */
  fallbackDate?: string;
  /** Control-statement section of the credited document (credit notes). */
  controlStatementOverride?: string | null;
}
