/**
 * The chart of accounts every organisation starts with (DESIGN §6). Numbers are strings; names
 * are localised (cs-CZ, en-US). Seeded on first use of an organisation.
 */
export interface ChartAccount {
  number: string;
  name: { 'cs-CZ': string; 'en-US': string };
}

export const DEFAULT_CHART: readonly ChartAccount[] = [
  { number: '211', name: { 'cs-CZ': 'Pokladna', 'en-US': 'Cash' } },
  { number: '221', name: { 'cs-CZ': 'Bankovní účty', 'en-US': 'Bank accounts' } },
  { number: '261', name: { 'cs-CZ': 'Peníze na cestě', 'en-US': 'Cash in transit' } },
  { number: '311', name: { 'cs-CZ': 'Odběratelé', 'en-US': 'Customers (receivables)' } },
  { number: '321', name: { 'cs-CZ': 'Dodavatelé', 'en-US': 'Vendors (payables)' } },
  { number: '343', name: { 'cs-CZ': 'Daň z přidané hodnoty', 'en-US': 'Value added tax' } },
  { number: '395', name: { 'cs-CZ': 'Vnitřní zúčtování', 'en-US': 'Suspense account' } },
  { number: '504', name: { 'cs-CZ': 'Prodané zboží', 'en-US': 'Cost of goods sold' } },
  { number: '518', name: { 'cs-CZ': 'Ostatní služby', 'en-US': 'Services purchased' } },
  { number: '563', name: { 'cs-CZ': 'Kurzové ztráty', 'en-US': 'Foreign exchange losses' } },
  { number: '568', name: { 'cs-CZ': 'Ostatní finanční náklady', 'en-US': 'Bank and platform fees' } },
  { number: '602', name: { 'cs-CZ': 'Tržby z prodeje služeb', 'en-US': 'Revenue from services' } },
  { number: '604', name: { 'cs-CZ': 'Tržby za zboží', 'en-US': 'Revenue from goods' } },
  { number: '663', name: { 'cs-CZ': 'Kurzové zisky', 'en-US': 'Foreign exchange gains' } },
];

/** Book 1 of every organisation is the general ledger. */
export const GENERAL_LEDGER_BOOK = { id: 1, name: 'General ledger' } as const;

export type ChartLocale = 'cs-CZ' | 'en-US';

/** cs-* in Accept-Language picks Czech names; anything else English. */
export function chartLocale(acceptLanguage: string | undefined | null): ChartLocale {
  const first = (acceptLanguage ?? '').split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('cs') ? 'cs-CZ' : 'en-US';
}

/** Name of an account that is not in the chart (an item's own gl_account number). */
export function unknownAccountName(number: string, locale: ChartLocale): string {
  return locale === 'cs-CZ' ? `Účet ${number}` : `Account ${number}`;
}
