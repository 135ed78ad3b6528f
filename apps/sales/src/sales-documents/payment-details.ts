import { documentVariableSymbol, domesticAccountOf } from '@ledgerline/documents';
import type { PaymentMethod } from '@ledgerline/contracts';
import type { DocumentKind } from '@ledgerline/rendering';
import { payeeAccount } from './payment-qr.js';

/*
 * What a document's payment block prints beyond its stored fields (issue 60): how it is paid, the
 * IBAN grouped in fours as people copy it, and for Czech and Slovak accounts the domestic account
 * number and the variable symbol a customer paying by hand types (with the constant and specific
 * symbols the document carries). Templates read it as `payment`.
 */

export interface PaymentDetails {
  method: PaymentMethod | null;
  /** The account the document is paid to as an IBAN, in groups of four. */
  iban: string | null;
  /** `19-2000145399/0800` for a Czech or Slovak IBAN. */
  domestic_account: string | null;
  variable_symbol: string | null;
  constant_symbol: string | null;
  specific_symbol: string | null;
}

/** An IBAN in groups of four (`CZ65 0800 0000 1920 0014 5399`). */
export const groupedIban = (iban: string) => iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');

export function paymentDetails(view: Record<string, unknown>, organisation: Record<string, unknown> | null, kind: DocumentKind): PaymentDetails {
  const account = payeeAccount(view, organisation);
  const domestic = domesticAccountOf(account?.iban);
  const country = typeof organisation?.country === 'string' ? organisation.country.toUpperCase() : null;
  // the symbols are a Czech and Slovak way of paying: printed where the account or the payee is there
  const symbols = domestic !== null || country === 'CZ' || country === 'SK';
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
  return {
    method: (text(view.payment_method) as PaymentMethod | null) ?? (account ? 'bank_transfer' : null),
    iban: account ? groupedIban(account.iban) : null,
    domestic_account: domestic ? `${domestic.accountNumber}/${domestic.bankCode}` : null,
    // a credit note is refunded by the organisation: the customer pays nothing by a symbol
    variable_symbol: symbols && (kind === 'invoice' || kind === 'proforma') ? documentVariableSymbol(view.payment_reference, view.no) : null,
    constant_symbol: symbols ? text(view.constant_symbol) : null,
    specific_symbol: symbols ? text(view.specific_symbol) : null,
  };
}
