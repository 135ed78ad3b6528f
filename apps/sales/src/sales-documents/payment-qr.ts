import QRCode from 'qrcode';
import { czechAccountToIban, documentVariableSymbol, normaliseIban, paymentQr, type PaymentQr } from '@ledgerline/documents';

/** A payment QR code ready to print: which code it is, the text it encodes, and a PNG data URI. */
export interface PrintedPaymentQr extends PaymentQr {
  image: string;
}

/**
 * The account the code pays: the one printed on the invoice (its own bank account, else the
 * organisation's), as an IBAN — a Czech account number is converted; never an account other
 * than the printed one. The organisation's BIC only when it is the organisation's account.
 */
export function payeeAccount(view: Record<string, unknown>, organisation: Record<string, unknown> | null): { iban: string; bic: string | null } | null {
  const bank = (organisation?.bank_account ?? {}) as { account_number?: string | null; iban?: string | null; bic?: string | null };
  const orgIban = normaliseIban(bank.iban);
  const printed = ((view.bank_account ?? {}) as { account_number?: string | null }).account_number ?? bank.account_number ?? null;
  if (!printed) return orgIban ? { iban: orgIban, bic: bank.bic ?? null } : null;
  const iban = normaliseIban(printed) ?? czechAccountToIban(printed) ?? (printed === bank.account_number ? orgIban : null);
  if (!iban) return null;
  return { iban, bic: iban === orgIban ? (bank.bic ?? null) : null };
}

/**
 * The payment code of an invoice with something left to pay, from its stored figures: QR Platba
 * in CZK, the EPC code in EUR, to the printed account. The variable symbol is the payment
 * reference when it is 1–10 digits, else the last ten digits of the document number (as printed
 * on the invoice). Null for a credit note, for nothing due, or without an account it can name.
 */
export async function invoicePaymentQr(view: Record<string, unknown>, organisation: Record<string, unknown> | null): Promise<PrintedPaymentQr | null> {
  const account = payeeAccount(view, organisation);
  const amountDue = view.amount_due;
  if (!account || (typeof amountDue !== 'number' && typeof amountDue !== 'string')) return null;
  const reference = documentVariableSymbol(view.payment_reference, view.no);
  const code = paymentQr({
    iban: account.iban,
    bic: account.bic,
    amount: amountDue,
    currency: String(view.currency ?? ''),
    reference,
    payee: typeof organisation?.name === 'string' ? organisation.name : null,
    dueDate: typeof view.date_due === 'string' ? view.date_due : null,
    message: typeof view.no === 'string' ? view.no : null,
    country: typeof organisation?.country === 'string' ? organisation.country : null,
  });
  if (!code) return null;
  // error correction M and a quiet zone of 4 modules, as the QR Platba and EPC guidelines ask
  const image = await QRCode.toDataURL(code.payload, { errorCorrectionLevel: 'M', margin: 4, width: 280 });
  return { ...code, image };
}
