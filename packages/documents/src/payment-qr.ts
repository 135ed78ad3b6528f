import { Dec } from '@ledgerline/core/money';
import { encode as encodePayBySquare, PaymentOptions } from 'bysquare/pay';

/*
 * Payment QR codes printed on invoices, from the stored figures: Czech QR Platba (SPAYD 1.0) for
 * CZK, Slovak PAY by square for EUR from a Slovak organisation, and the EPC QR code (SEPA credit
 * transfer, EPC069-12 version 002) for other EUR invoices. Banking apps read the account, amount,
 * currency and reference from them, so the payer types nothing.
 */

export interface PaymentQrInput {
  iban: string | null | undefined;
  bic?: string | null;
  /** What is left to pay, in `currency` (the stored amount due). */
  amount: string | number;
  currency: string;
  /** The variable symbol (digits, at most 10) or another payment reference. */
  reference?: string | null;
  /** The payee (the organisation's name), which the EPC code requires. */
  payee?: string | null;
  /** Due date, YYYY-MM-DD. */
  dueDate?: string | null;
  message?: string | null;
  /** The organisation's country: a Slovak one prints PAY by square for EUR. */
  country?: string | null;
}

export type PaymentQr = { kind: 'spayd' | 'epc' | 'bysquare'; payload: string };

const IBAN = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
const BIC = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

/** An IBAN as the codes carry it (no spaces, upper case), or null when it is not one. */
export function normaliseIban(iban: string | null | undefined): string | null {
  const v = (iban ?? '').replace(/\s+/g, '').toUpperCase();
  if (!IBAN.test(v)) return null;
  // ISO 13616 check digits: move the first four characters to the end, letters to numbers, mod 97 = 1
  const digits = (v.slice(4) + v.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return mod97(digits) === 1 ? v : null;
}

function mod97(digits: string): number {
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest;
}

/**
 * The IBAN of a Czech domestic account number (`[prefix-]number/bank`, as printed on invoices):
 * BBAN = bank code (4) + prefix (6) + number (10), check digits per ISO 13616. Null when the text
 * is not a Czech account number or its parts fail the Czech weighted check (mod 11).
 */
export function czechAccountToIban(account: string | null | undefined): string | null {
  const m = /^\s*(?:(\d{1,6})-)?(\d{2,10})\s*\/\s*(\d{4})\s*$/.exec(account ?? '');
  if (!m) return null;
  const prefix = (m[1] ?? '').padStart(6, '0');
  const number = m[2].padStart(10, '0');
  const weighted = (s: string, weights: number[]) => [...s].reduce((sum, d, i) => sum + Number(d) * weights[i], 0) % 11 === 0;
  if (!weighted(prefix, [10, 5, 8, 4, 2, 1]) || !weighted(number, [6, 3, 7, 9, 10, 5, 8, 4, 2, 1])) return null;
  const bban = `${m[3]}${prefix}${number}`;
  const check = String(98 - mod97(`${bban}123500`)).padStart(2, '0');
  return `CZ${check}${bban}`;
}

/**
 * The domestic account inside a Czech or Slovak IBAN (both write `CCkk BBBB PPPPPP AAAAAAAAAA`:
 * bank code, account prefix, account number), as Czech payment orders, ISDOC and bank statements
 * name it; null for other countries.
 */
export function domesticAccountOf(iban: string | null | undefined): { accountNumber: string; bankCode: string } | null {
  const m = /^(CZ|SK)\d{2}(\d{4})(\d{6})(\d{10})$/.exec((iban ?? '').replace(/\s+/g, '').toUpperCase());
  if (!m) return null;
  const prefix = m[3].replace(/^0+/, '');
  const number = m[4].replace(/^0+/, '') || '0';
  return { accountNumber: prefix ? `${prefix}-${number}` : number, bankCode: m[2] };
}

/**
 * The variable symbol a document is paid by, as its invoice prints it: the payment reference when
 * it is 1–10 digits, else the last ten digits of the document number.
 */
export function documentVariableSymbol(paymentReference: unknown, no: unknown): string | null {
  const reference = typeof paymentReference === 'string' ? paymentReference.trim() : '';
  if (/^\d{1,10}$/.test(reference)) return reference;
  return (typeof no === 'string' ? no.replace(/\D/g, '') : '').slice(-10) || null;
}

/** The variable symbol of a reference: its digits when it is 1–10 digits, else null. */
export function variableSymbol(reference: string | null | undefined): string | null {
  const v = (reference ?? '').trim();
  return /^\d{1,10}$/.test(v) ? v : null;
}

/** SPAYD text: no `*` (the field separator), printable ASCII only (diacritics dropped), bounded. */
function spaydText(text: string, max: number): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/\*/g, '')
    .trim()
    .slice(0, max);
}

/** Czech QR Platba: `SPD*1.0*ACC:<IBAN>[+<BIC>]*AM:<amount>*CC:CZK*[X-VS:<vs>*][DT:<yyyymmdd>*][MSG:<text>]`. */
export function spaydPayload(p: PaymentQrInput): string | null {
  const iban = normaliseIban(p.iban);
  const amount = new Dec(p.amount);
  if (!iban || amount.lte(0) || amount.gt('9999999.99')) return null;
  const bic = p.bic && BIC.test(p.bic.toUpperCase()) ? `+${p.bic.toUpperCase()}` : '';
  const fields = [`ACC:${iban}${bic}`, `AM:${amount.toFixed(2)}`, `CC:${p.currency.toUpperCase()}`];
  const vs = variableSymbol(p.reference);
  if (vs) fields.push(`X-VS:${vs}`);
  if (p.dueDate && /^\d{4}-\d{2}-\d{2}$/.test(p.dueDate)) fields.push(`DT:${p.dueDate.replace(/-/g, '')}`);
  const msg = p.message ? spaydText(p.message, 60) : '';
  if (msg) fields.push(`MSG:${msg}`);
  return ['SPD', '1.0', ...fields].join('*');
}

/**
 * EPC QR code (SEPA credit transfer): service tag BCD, version 002, UTF-8, SCT, BIC (optional in
 * version 002), payee name, IBAN, `EUR<amount>`, purpose, structured reference or text.
 */
export function epcPayload(p: PaymentQrInput): string | null {
  const iban = normaliseIban(p.iban);
  const amount = new Dec(p.amount);
  const payee = (p.payee ?? '').replace(/[\r\n]+/g, ' ').trim().slice(0, 70);
  if (!iban || !payee || amount.lt('0.01') || amount.gt('999999999.99') || p.currency.toUpperCase() !== 'EUR') return null;
  const bic = p.bic && BIC.test(p.bic.toUpperCase()) ? p.bic.toUpperCase() : '';
  const text = (p.reference ?? p.message ?? '').replace(/[\r\n]+/g, ' ').trim().slice(0, 140);
  return ['BCD', '002', '1', 'SCT', bic, payee, iban, `EUR${amount.toFixed(2)}`, '', '', text].join('\n');
}

/**
 * PAY by square (Slovak Banking Association, v1.1): one payment order with the IBAN, amount,
 * currency, due date, variable symbol and note, CRC32-checked, LZMA-compressed and base32hex
 * encoded by the `bysquare` library.
 */
export function payBySquarePayload(p: PaymentQrInput): string | null {
  const iban = normaliseIban(p.iban);
  const amount = new Dec(p.amount);
  if (!iban || amount.lte(0) || amount.gt('999999999.99')) return null;
  const vs = variableSymbol(p.reference);
  const bic = p.bic && BIC.test(p.bic.toUpperCase()) ? p.bic.toUpperCase() : undefined;
  return encodePayBySquare({
    payments: [
      {
        type: PaymentOptions.PaymentOrder,
        // the amount has at most two decimals and fifteen digits: a double carries it exactly
        amount: amount.toNumber(),
        currencyCode: p.currency.toUpperCase(),
        ...(p.dueDate && /^\d{4}-\d{2}-\d{2}$/.test(p.dueDate) ? { paymentDueDate: p.dueDate.replace(/-/g, '') } : {}),
        ...(vs ? { variableSymbol: vs } : {}),
        ...(p.message ? { paymentNote: p.message.slice(0, 140) } : {}),
        bankAccounts: [{ iban, ...(bic ? { bic } : {}) }],
        beneficiary: { name: (p.payee ?? '').slice(0, 70) || iban },
      },
    ],
  });
}

/**
 * The code for a document: QR Platba for CZK; for EUR, PAY by square from a Slovak organisation
 * and the EPC code from any other; none otherwise or without an IBAN.
 */
export function paymentQr(p: PaymentQrInput): PaymentQr | null {
  const currency = p.currency.toUpperCase();
  if (currency === 'CZK') {
    const payload = spaydPayload(p);
    return payload ? { kind: 'spayd', payload } : null;
  }
  if (currency === 'EUR' && (p.country ?? '').toUpperCase() === 'SK') {
    const payload = payBySquarePayload(p);
    return payload ? { kind: 'bysquare', payload } : null;
  }
  if (currency === 'EUR') {
    const payload = epcPayload(p);
    return payload ? { kind: 'epc', payload } : null;
  }
  return null;
}
