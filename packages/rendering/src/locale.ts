/**
 * Cultures the documents are rendered in: labels of the default template and the formatting of
 * amounts and dates. Numbers are formatted from their decimal string (never through float
 * arithmetic): Intl.NumberFormat accepts a decimal string and keeps its digits exactly.
 */

export const SUPPORTED_CULTURES = ['cs-CZ', 'sk-SK', 'en-US'] as const;
export type SupportedCulture = (typeof SUPPORTED_CULTURES)[number];
export const DEFAULT_CULTURE: SupportedCulture = 'en-US';

export type LabelKey = keyof typeof EN_US;

const EN_US = {
  invoice: 'Invoice',
  credit_note: 'Credit note',
  proforma: 'Proforma invoice – not a tax document',
  advance_tax_document: 'Tax document for a received payment',
  advance_deducted: 'Advance paid {no}',
  proforma_no: 'Payment for proforma',
  document_no: 'Number',
  supplier: 'Supplier',
  customer: 'Customer',
  reg_no: 'Company ID',
  vat_no: 'VAT ID',
  tax_no: 'Tax ID',
  date_issued: 'Date of issue',
  date_taxable: 'Date of taxable supply',
  date_due: 'Due date',
  credited_doc_no: 'Credit note to invoice',
  item: 'Item',
  qty: 'Qty',
  unit: 'Unit',
  rate: 'Unit price',
  discount: 'Discount',
  tax_rate: 'VAT rate',
  amount: 'Amount',
  shipping: 'Shipping',
  recap: 'VAT recapitulation',
  recap_leg: 'VAT in {currency}',
  tax_total: 'VAT total',
  fx_rate: 'Exchange rate',
  tax_base: 'Tax base',
  tax_amount: 'VAT',
  subtotal: 'Subtotal',
  rounding: 'Rounding',
  total: 'Total',
  amount_paid: 'Paid',
  amount_due: 'Amount due',
  amount_to_refund: 'To be refunded',
  qr_spayd: 'QR payment',
  qr_epc: 'Pay by QR (SEPA)',
  qr_bysquare: 'PAY by square',
  payment: 'Payment details',
  bank_account: 'Bank account',
  payment_reference: 'Payment reference',
  payment_method: 'Payment method',
  method_bank_transfer: 'Bank transfer',
  method_cash: 'Cash',
  method_card: 'Card',
  method_cash_on_delivery: 'Cash on delivery',
  variable_symbol: 'Variable symbol',
  constant_symbol: 'Constant symbol',
  specific_symbol: 'Specific symbol',
  tax_document: 'Tax document',
  payment_info: 'Payment',
  delivery_condition: 'Delivery terms',
  notes: 'Notes',
  email_subject_invoice: 'Invoice {no}',
  email_body_invoice: 'Hello,\n\nplease find attached invoice {no} for {total}, due on {date_due}.\n\nKind regards,\n{org}',
  email_subject_credit_note: 'Credit note {no}',
  email_body_credit_note: 'Hello,\n\nplease find attached credit note {no} for {total}.\n\nKind regards,\n{org}',
  email_subject_proforma: 'Proforma invoice {no}',
  email_body_proforma: 'Hello,\n\nplease find attached proforma invoice {no} for {total}, to be paid in advance by {date_due}.\n\nKind regards,\n{org}',
} as const;

const CS_CZ: Record<LabelKey, string> = {
  invoice: 'Faktura',
  credit_note: 'Opravný daňový doklad',
  proforma: 'Zálohová faktura – není daňovým dokladem',
  advance_tax_document: 'Daňový doklad k přijaté platbě',
  advance_deducted: 'Uhrazená záloha {no}',
  proforma_no: 'Platba k zálohové faktuře',
  document_no: 'Číslo',
  supplier: 'Dodavatel',
  customer: 'Odběratel',
  reg_no: 'IČO',
  vat_no: 'DIČ',
  tax_no: 'Daňové číslo',
  date_issued: 'Datum vystavení',
  date_taxable: 'Datum zdanitelného plnění',
  date_due: 'Datum splatnosti',
  credited_doc_no: 'Opravuje fakturu',
  item: 'Položka',
  qty: 'Množství',
  unit: 'Jednotka',
  rate: 'Cena za jednotku',
  discount: 'Sleva',
  tax_rate: 'Sazba DPH',
  amount: 'Částka',
  shipping: 'Doprava',
  recap: 'Rekapitulace DPH',
  recap_leg: 'DPH v {currency}',
  tax_total: 'DPH celkem',
  fx_rate: 'Kurz',
  tax_base: 'Základ daně',
  tax_amount: 'DPH',
  subtotal: 'Celkem bez DPH',
  rounding: 'Zaokrouhlení',
  total: 'Celkem',
  amount_paid: 'Uhrazeno',
  amount_due: 'K úhradě',
  amount_to_refund: 'K vrácení',
  qr_spayd: 'QR Platba',
  qr_epc: 'QR platba (SEPA)',
  qr_bysquare: 'PAY by square',
  payment: 'Platební údaje',
  bank_account: 'Bankovní účet',
  payment_reference: 'Platební reference',
  payment_method: 'Způsob úhrady',
  method_bank_transfer: 'Převodem',
  method_cash: 'Hotově',
  method_card: 'Kartou',
  method_cash_on_delivery: 'Dobírkou',
  variable_symbol: 'Variabilní symbol',
  constant_symbol: 'Konstantní symbol',
  specific_symbol: 'Specifický symbol',
  tax_document: 'Daňový doklad',
  payment_info: 'Způsob úhrady',
  delivery_condition: 'Dodací podmínky',
  notes: 'Poznámka',
  email_subject_invoice: 'Faktura {no}',
  email_body_invoice: 'Dobrý den,\n\nv příloze zasíláme fakturu {no} na částku {total} se splatností {date_due}.\n\nS pozdravem\n{org}',
  email_subject_credit_note: 'Opravný daňový doklad {no}',
  email_body_credit_note: 'Dobrý den,\n\nv příloze zasíláme opravný daňový doklad {no} na částku {total}.\n\nS pozdravem\n{org}',
  email_subject_proforma: 'Zálohová faktura {no}',
  email_body_proforma: 'Dobrý den,\n\nv příloze zasíláme zálohovou fakturu {no} na částku {total} splatnou {date_due}.\n\nS pozdravem\n{org}',
};

const SK_SK: Record<LabelKey, string> = {
  invoice: 'Faktúra',
  credit_note: 'Dobropis',
  proforma: 'Zálohová faktúra – nie je daňovým dokladom',
  advance_tax_document: 'Daňový doklad k prijatej platbe',
  advance_deducted: 'Uhradená záloha {no}',
  proforma_no: 'Platba k zálohovej faktúre',
  document_no: 'Číslo',
  supplier: 'Dodávateľ',
  customer: 'Odberateľ',
  reg_no: 'IČO',
  vat_no: 'IČ DPH',
  tax_no: 'DIČ',
  date_issued: 'Dátum vystavenia',
  date_taxable: 'Dátum dodania',
  date_due: 'Dátum splatnosti',
  credited_doc_no: 'Dobropis k faktúre',
  item: 'Položka',
  qty: 'Množstvo',
  unit: 'Jednotka',
  rate: 'Jednotková cena',
  discount: 'Zľava',
  tax_rate: 'Sadzba DPH',
  amount: 'Suma',
  shipping: 'Doprava',
  recap: 'Rekapitulácia DPH',
  recap_leg: 'DPH v {currency}',
  tax_total: 'DPH spolu',
  fx_rate: 'Kurz',
  tax_base: 'Základ dane',
  tax_amount: 'DPH',
  subtotal: 'Spolu bez DPH',
  rounding: 'Zaokrúhlenie',
  total: 'Spolu',
  amount_paid: 'Uhradené',
  amount_due: 'K úhrade',
  amount_to_refund: 'Na vrátenie',
  qr_spayd: 'QR platba',
  qr_epc: 'QR platba (SEPA)',
  qr_bysquare: 'PAY by square',
  payment: 'Platobné údaje',
  bank_account: 'Bankový účet',
  payment_reference: 'Platobná referencia',
  payment_method: 'Spôsob úhrady',
  method_bank_transfer: 'Prevodom',
  method_cash: 'V hotovosti',
  method_card: 'Kartou',
  method_cash_on_delivery: 'Dobierkou',
  variable_symbol: 'Variabilný symbol',
  constant_symbol: 'Konštantný symbol',
  specific_symbol: 'Špecifický symbol',
  tax_document: 'Daňový doklad',
  payment_info: 'Spôsob úhrady',
  delivery_condition: 'Dodacie podmienky',
  notes: 'Poznámka',
  email_subject_invoice: 'Faktúra {no}',
  email_body_invoice: 'Dobrý deň,\n\nv prílohe zasielame faktúru {no} na sumu {total} so splatnosťou {date_due}.\n\nS pozdravom\n{org}',
  email_subject_credit_note: 'Dobropis {no}',
  email_body_credit_note: 'Dobrý deň,\n\nv prílohe zasielame dobropis {no} na sumu {total}.\n\nS pozdravom\n{org}',
  email_subject_proforma: 'Zálohová faktúra {no}',
  email_body_proforma: 'Dobrý deň,\n\nv prílohe zasielame zálohovú faktúru {no} na sumu {total} splatnú {date_due}.\n\nS pozdravom\n{org}',
};

export const BUILT_IN_LABELS: Record<SupportedCulture, Record<LabelKey, string>> = {
  'en-US': EN_US,
  'cs-CZ': CS_CZ,
  'sk-SK': SK_SK,
};

/** The culture documents addressed to a country are written in, when the platform has its labels. */
export function cultureOfCountry(country: unknown): SupportedCulture | null {
  if (typeof country !== 'string') return null;
  return ({ CZ: 'cs-CZ', SK: 'sk-SK', US: 'en-US' } as Record<string, SupportedCulture>)[country.trim().toUpperCase()] ?? null;
}

/** The canonical form of a BCP 47 tag (`cs-cz` → `cs-CZ`), or null when it is not one. */
export function canonicalCulture(tag: string): string | null {
  try {
    const [c] = Intl.getCanonicalLocales(tag);
    return c ?? null;
  } catch {
    return null;
  }
}

/** The built-in label set for a culture: exact match, then the same language, then en-US. */
export function builtInLabels(culture: string): Record<LabelKey, string> {
  const exact = (SUPPORTED_CULTURES as readonly string[]).find((c) => c.toLowerCase() === culture.toLowerCase());
  if (exact) return BUILT_IN_LABELS[exact as SupportedCulture];
  const lang = culture.split('-')[0].toLowerCase();
  const sameLang = SUPPORTED_CULTURES.find((c) => c.split('-')[0] === lang);
  return BUILT_IN_LABELS[sameLang ?? DEFAULT_CULTURE];
}

/** A JSON number or decimal string as a plain decimal string (no exponent), or null. */
export function decimalString(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    // Shortest round-trip digits of the stored figure; never arithmetic on it.
    const s = String(v);
    if (!/e/i.test(s)) return s;
    return v.toFixed(20).replace(/\.?0+$/, '');
  }
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return v.trim();
  return null;
}

/** An amount in its currency for a culture, e.g. `121,00 Kč` (cs-CZ, CZK) or `$121.00` (en-US, USD). */
export function formatMoney(value: unknown, culture: string, currency: string | null | undefined, precision = 2): string {
  const s = decimalString(value);
  if (s === null) return '';
  const digits = Math.max(0, Math.min(4, precision));
  const opts: Intl.NumberFormatOptions = { minimumFractionDigits: digits, maximumFractionDigits: digits };
  if (currency && /^[A-Z]{3}$/.test(currency)) Object.assign(opts, { style: 'currency', currency });
  try {
    return new Intl.NumberFormat(culture, opts).format(s as unknown as number);
  } catch {
    return new Intl.NumberFormat(DEFAULT_CULTURE, opts).format(s as unknown as number);
  }
}

/** A quantity or rate: up to `maxDigits` decimals, at least `minDigits`. */
export function formatNumber(value: unknown, culture: string, minDigits = 0, maxDigits = 6): string {
  const s = decimalString(value);
  if (s === null) return '';
  const opts = { minimumFractionDigits: minDigits, maximumFractionDigits: Math.max(minDigits, maxDigits) };
  try {
    return new Intl.NumberFormat(culture, opts).format(s as unknown as number);
  } catch {
    return new Intl.NumberFormat(DEFAULT_CULTURE, opts).format(s as unknown as number);
  }
}

/** A tax rate in percent for a culture (`21 %` in cs-CZ, `21%` in en-US). */
export function formatPercent(value: unknown, culture: string): string {
  const s = decimalString(value);
  if (s === null) return '';
  const digits = s.includes('.') ? Math.min(4, s.split('.')[1].length) : 0;
  const opts: Intl.NumberFormatOptions = { style: 'percent', minimumFractionDigits: 0, maximumFractionDigits: digits };
  // Percent style multiplies by 100: give it the rate divided by 100 as a decimal string (a shift, not arithmetic).
  const shifted = shiftDecimal(s, -2);
  try {
    return new Intl.NumberFormat(culture, opts).format(shifted as unknown as number);
  } catch {
    return new Intl.NumberFormat(DEFAULT_CULTURE, opts).format(shifted as unknown as number);
  }
}

/** Moves the decimal point of a decimal string by `places` (negative: to the left). */
function shiftDecimal(s: string, places: number): string {
  const neg = s.startsWith('-');
  const [int, frac = ''] = (neg ? s.slice(1) : s).split('.');
  let digits = int + frac;
  let point = int.length + places;
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  while (digits.length < point) digits += '0';
  const out = `${digits.slice(0, point)}.${digits.slice(point)}`.replace(/\.$/, '');
  return (neg ? '-' : '') + out;
}

/** An ISO date (`2026-11-23`) for a culture (`23. 11. 2026` in cs-CZ, `11/23/2026` in en-US). */
export function formatDate(value: unknown, culture: string): string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(value)) return typeof value === 'string' ? value : '';
  const d = new Date(`${value.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return value;
  const opts: Intl.DateTimeFormatOptions = { timeZone: 'UTC', year: 'numeric', month: 'numeric', day: 'numeric' };
  try {
    return new Intl.DateTimeFormat(culture, opts).format(d);
  } catch {
    return new Intl.DateTimeFormat(DEFAULT_CULTURE, opts).format(d);
  }
}

/** `{name}` placeholders filled from `values` (missing ones become empty). */
export function interpolate(text: string, values: Record<string, string | null | undefined>): string {
  return text.replace(/\{([a-z_]+)\}/g, (_, k: string) => values[k] ?? '');
}
