import { czechAccountToIban, normaliseIban } from './payment-qr.js';

/*
 * The identifiers a contact carries, checked as the registers that issue them define them:
 * the Czech company number (IČO) by its mod-11 check digit, VAT numbers (DIČ) by the format of
 * their country, bank accounts by their IBAN check digits or the Czech weighted check. Each
 * answers the normalised identifier, or a message saying why it is not one.
 */

export type Checked = { value: string } | { problem: string };

/** Spaces, dots, dashes and slashes people type inside identifiers. */
const SEPARATORS = /[\s.\-/]/g;

/**
 * IČO (identifikační číslo osoby, Act 111/2009 §8): eight digits, the last a check digit. Weights
 * 8…2 over the first seven; remainder r of the sum by 11 gives (11 − r) mod 10 — so r = 0 gives
 * 1 and r = 1 gives 0. Shorter numbers are written with leading zeros left out.
 */
export function checkCompanyNumber(raw: string): Checked {
  const v = raw.replace(/\s/g, '');
  if (!/^\d{1,8}$/.test(v)) return { problem: 'an IČO is at most eight digits' };
  const ico = v.padStart(8, '0');
  if (/^0+$/.test(ico)) return { problem: 'an IČO is not all zeros' };
  const sum = [...ico.slice(0, 7)].reduce((s, d, i) => s + Number(d) * (8 - i), 0);
  const expected = (11 - (sum % 11)) % 10;
  if (Number(ico[7]) !== expected) return { problem: `the check digit of IČO ${ico} does not hold (mod 11: expected ${expected})` };
  return { value: ico };
}

/**
 * VAT identification numbers by the format each country gives them (the EU's as VIES checks them,
 * and the neighbours' a Czech business meets): the country prefix and what follows it.
 */
export const VAT_NUMBER_FORMATS: Readonly<Record<string, RegExp>> = {
  AT: /^ATU\d{8}$/,
  BE: /^BE[01]\d{9}$/,
  BG: /^BG\d{9,10}$/,
  CY: /^CY\d{8}[A-Z]$/,
  CZ: /^CZ\d{8,10}$/,
  DE: /^DE\d{9}$/,
  DK: /^DK\d{8}$/,
  EE: /^EE\d{9}$/,
  EL: /^EL\d{9}$/,
  ES: /^ES[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^FI\d{8}$/,
  FR: /^FR[A-HJ-NP-Z0-9]{2}\d{9}$/,
  HR: /^HR\d{11}$/,
  HU: /^HU\d{8}$/,
  IE: /^IE(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/,
  IT: /^IT\d{11}$/,
  LT: /^LT(\d{9}|\d{12})$/,
  LU: /^LU\d{8}$/,
  LV: /^LV\d{11}$/,
  MT: /^MT\d{8}$/,
  NL: /^NL\d{9}B\d{2}$/,
  PL: /^PL\d{10}$/,
  PT: /^PT\d{9}$/,
  RO: /^RO\d{2,10}$/,
  SE: /^SE\d{10}01$/,
  SI: /^SI\d{8}$/,
  SK: /^SK[1-9]\d{9}$/,
  XI: /^XI(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  GB: /^GB(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  CH: /^CHE\d{9}(MWST|TVA|IVA)?$/,
  NO: /^NO\d{9}(MVA)?$/,
};

/** EU member states' VAT prefixes: the numbers VIES answers for (Greece is EL, Northern Ireland XI). */
export const VIES_PREFIXES: ReadonlySet<string> = new Set(
  'AT BE BG CY CZ DE DK EE EL ES FI FR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK XI'.split(' '),
);

/**
 * A VAT number (DIČ): its country prefix and the format that country gives it. A Czech legal
 * person's DIČ is CZ and its IČO (so the IČO check holds); a natural person's is CZ and the birth
 * number, whose ten-digit form is divisible by 11. Countries without a format here take two letters
 * and 2–18 letters or digits.
 */
export function checkVatNumber(raw: string): Checked {
  const v = raw.replace(SEPARATORS, '').toUpperCase();
  if (!/^[A-Z]{2}[A-Z0-9+*]{2,18}$/.test(v)) return { problem: 'a VAT number is its country code and 2–18 letters or digits, e.g. CZ12345678' };
  const prefix = v.slice(0, 2);
  const format = VAT_NUMBER_FORMATS[prefix];
  if (format && !format.test(v)) return { problem: `not the format of a ${prefix} VAT number` };
  if (prefix === 'CZ') {
    const digits = v.slice(2);
    if (digits.length === 8) {
      const ico = checkCompanyNumber(digits);
      if ('problem' in ico) return { problem: `a Czech company's DIČ is CZ and its IČO, and ${ico.problem}` };
    } else if (digits.length === 10 && !birthNumberHolds(digits)) {
      return { problem: 'a ten-digit Czech DIČ is a birth number, which is divisible by 11' };
    }
  }
  return { value: v };
}

/** Ten-digit birth numbers are divisible by 11 (until 1985 a remainder of 10 was written as a last digit 0). */
function birthNumberHolds(digits: string): boolean {
  const n = BigInt(digits);
  if (n % 11n === 0n) return true;
  return BigInt(digits.slice(0, 9)) % 11n === 10n && digits.endsWith('0');
}

/** An IBAN (ISO 13616 check digits), without spaces and in upper case. */
export function checkIban(raw: string): Checked {
  const v = normaliseIban(raw);
  return v ? { value: v } : { problem: 'not an IBAN: its check digits (mod 97) do not hold, or it is not two letters, two digits and the account' };
}

/**
 * A Czech domestic account number `[prefix-]number/bank code`: the prefix (up to six digits) and
 * the number (two to ten) each pass the weighted check of the CNB's decree 169/2011 (weights
 * 10,5,8,4,2,1 and 6,3,7,9,10,5,8,4,2,1, sum divisible by 11); answered as written, normalised,
 * with its IBAN.
 */
export function checkCzechAccount(raw: string): { value: string; iban: string } | { problem: string } {
  const m = /^\s*(?:(\d{1,6})\s*-\s*)?(\d{2,10})\s*\/\s*(\d{4})\s*$/.exec(raw);
  if (!m) return { problem: 'a Czech account number is [prefix-]number/bank code, e.g. 19-2000145399/0800' };
  const prefix = (m[1] ?? '').replace(/^0+/, '');
  const number = m[2].replace(/^0+/, '') || '0';
  const value = `${prefix ? `${prefix}-` : ''}${number}/${m[3]}`;
  const iban = czechAccountToIban(value);
  if (!iban) return { problem: 'the weighted check (mod 11) of the account number or its prefix does not hold' };
  return { value, iban };
}
