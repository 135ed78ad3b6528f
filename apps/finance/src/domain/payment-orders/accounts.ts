import { checkCzechAccount, checkIban } from '@ledgerline/documents/party-identifiers';
import { domesticAccountOf } from '@ledgerline/documents/payment-qr';

/**
 * An account as a payment order writes it: its IBAN (pain.001 names accounts by IBAN; a Czech
 * domestic number gets its IBAN with the check digits, decree 169/2011 and ISO 13616), its Czech
 * domestic number when it has one (the ABO file names accounts so), and a BIC when given.
 */
export interface OrderAccount {
  account_number: string | null;
  iban: string | null;
  bic: string | null;
}

/**
 * The account written as a Czech domestic number or an IBAN (spaces allowed), with a BIC when
 * known; null when it is neither (a typo, a foreign domestic number).
 */
export function orderAccount(given: { account_number?: string | null; iban?: string | null; bic?: string | null } | string | null | undefined): OrderAccount | null {
  if (!given) return null;
  const fields = typeof given === 'string' ? { account_number: given, iban: null, bic: null } : given;
  const bic = fields.bic?.replace(/\s+/g, '').toUpperCase() || null;
  for (const raw of [fields.iban, fields.account_number]) {
    const text = raw?.trim();
    if (!text) continue;
    const czech = checkCzechAccount(text);
    if ('value' in czech) return { account_number: czech.value, iban: czech.iban, bic };
    const iban = checkIban(text);
    if ('value' in iban) {
      const domestic = domesticAccountOf(iban.value);
      return { account_number: domestic && iban.value.startsWith('CZ') ? `${domestic.accountNumber}/${domestic.bankCode}` : null, iban: iban.value, bic };
    }
  }
  return null;
}

/** The parts of a Czech domestic account for the ABO file: prefix, number and bank code. */
export function domesticParts(account: OrderAccount): { prefix: string; number: string; bank: string } | null {
  const m = /^(?:(\d{1,6})-)?(\d{1,10})\/(\d{4})$/.exec(account.account_number ?? '');
  return m ? { prefix: m[1] ?? '', number: m[2], bank: m[3] } : null;
}
