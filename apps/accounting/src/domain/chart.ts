/**
 * The chart of accounts every organisation starts with (architecture §6, and decision 166 for the
 * accounts beyond the posting map's). Numbers are strings; names are localised (cs-CZ, en-US).
 * Seeded on an organisation's first posting in a process; an organisation renames an account or
 * adds its own with `PUT /v1/accounting/accounts/{number}`, which the seed never overwrites.
 */
export interface ChartAccount {
  number: string;
  name: { 'cs-CZ': string; 'en-US': string };
}

export const DEFAULT_CHART: readonly ChartAccount[] = [
  // the accounts the posting map uses
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
  { number: '548', name: { 'cs-CZ': 'Ostatní provozní náklady', 'en-US': 'Other operating expenses' } },
  { number: '648', name: { 'cs-CZ': 'Ostatní provozní výnosy', 'en-US': 'Other operating revenue' } },
  { number: '663', name: { 'cs-CZ': 'Kurzové zisky', 'en-US': 'Foreign exchange gains' } },
  // the common accounts of the Czech chart (směrná účtová osnova) that journal entries post to:
  // fixed assets and their depreciation, inventory, accruals, payroll, equity, opening balances
  { number: '013', name: { 'cs-CZ': 'Software', 'en-US': 'Software' } },
  { number: '021', name: { 'cs-CZ': 'Stavby', 'en-US': 'Buildings' } },
  { number: '022', name: { 'cs-CZ': 'Hmotné movité věci a jejich soubory', 'en-US': 'Equipment and machinery' } },
  { number: '042', name: { 'cs-CZ': 'Pořízení dlouhodobého hmotného majetku', 'en-US': 'Tangible fixed assets in progress' } },
  { number: '073', name: { 'cs-CZ': 'Oprávky k softwaru', 'en-US': 'Accumulated amortisation of software' } },
  { number: '081', name: { 'cs-CZ': 'Oprávky ke stavbám', 'en-US': 'Accumulated depreciation of buildings' } },
  { number: '082', name: { 'cs-CZ': 'Oprávky k hmotným movitým věcem a jejich souborům', 'en-US': 'Accumulated depreciation of equipment' } },
  { number: '112', name: { 'cs-CZ': 'Materiál na skladě', 'en-US': 'Materials in stock' } },
  { number: '132', name: { 'cs-CZ': 'Zboží na skladě', 'en-US': 'Goods in stock' } },
  { number: '213', name: { 'cs-CZ': 'Ceniny', 'en-US': 'Stamps and vouchers' } },
  { number: '231', name: { 'cs-CZ': 'Krátkodobé úvěry', 'en-US': 'Short-term bank loans' } },
  { number: '314', name: { 'cs-CZ': 'Poskytnuté zálohy', 'en-US': 'Advances paid' } },
  { number: '324', name: { 'cs-CZ': 'Přijaté zálohy', 'en-US': 'Advances received' } },
  { number: '331', name: { 'cs-CZ': 'Zaměstnanci', 'en-US': 'Employees (wages payable)' } },
  { number: '336', name: { 'cs-CZ': 'Zúčtování s institucemi sociálního zabezpečení a zdravotního pojištění', 'en-US': 'Social security and health insurance payable' } },
  { number: '341', name: { 'cs-CZ': 'Daň z příjmů', 'en-US': 'Income tax' } },
  { number: '342', name: { 'cs-CZ': 'Ostatní přímé daně', 'en-US': 'Other direct taxes (payroll tax)' } },
  { number: '345', name: { 'cs-CZ': 'Ostatní daně a poplatky', 'en-US': 'Other taxes and fees' } },
  { number: '378', name: { 'cs-CZ': 'Jiné pohledávky', 'en-US': 'Other receivables' } },
  { number: '379', name: { 'cs-CZ': 'Jiné závazky', 'en-US': 'Other payables' } },
  { number: '381', name: { 'cs-CZ': 'Náklady příštích období', 'en-US': 'Prepaid expenses' } },
  { number: '383', name: { 'cs-CZ': 'Výdaje příštích období', 'en-US': 'Accrued expenses' } },
  { number: '384', name: { 'cs-CZ': 'Výnosy příštích období', 'en-US': 'Deferred revenue' } },
  { number: '385', name: { 'cs-CZ': 'Příjmy příštích období', 'en-US': 'Accrued revenue' } },
  { number: '388', name: { 'cs-CZ': 'Dohadné účty aktivní', 'en-US': 'Estimated receivables' } },
  { number: '389', name: { 'cs-CZ': 'Dohadné účty pasivní', 'en-US': 'Estimated payables' } },
  { number: '411', name: { 'cs-CZ': 'Základní kapitál', 'en-US': 'Share capital' } },
  { number: '428', name: { 'cs-CZ': 'Nerozdělený zisk minulých let', 'en-US': 'Retained earnings' } },
  { number: '429', name: { 'cs-CZ': 'Neuhrazená ztráta minulých let', 'en-US': 'Accumulated losses' } },
  { number: '431', name: { 'cs-CZ': 'Výsledek hospodaření ve schvalovacím řízení', 'en-US': 'Profit or loss awaiting approval' } },
  { number: '461', name: { 'cs-CZ': 'Dlouhodobé bankovní úvěry', 'en-US': 'Long-term bank loans' } },
  { number: '501', name: { 'cs-CZ': 'Spotřeba materiálu', 'en-US': 'Materials consumed' } },
  { number: '502', name: { 'cs-CZ': 'Spotřeba energie', 'en-US': 'Energy consumed' } },
  { number: '511', name: { 'cs-CZ': 'Opravy a udržování', 'en-US': 'Repairs and maintenance' } },
  { number: '512', name: { 'cs-CZ': 'Cestovné', 'en-US': 'Travel expenses' } },
  { number: '513', name: { 'cs-CZ': 'Náklady na reprezentaci', 'en-US': 'Entertainment expenses' } },
  { number: '521', name: { 'cs-CZ': 'Mzdové náklady', 'en-US': 'Wages and salaries' } },
  { number: '524', name: { 'cs-CZ': 'Zákonné sociální a zdravotní pojištění', 'en-US': 'Statutory social and health insurance' } },
  { number: '538', name: { 'cs-CZ': 'Ostatní daně a poplatky', 'en-US': 'Other taxes and fees (expense)' } },
  { number: '551', name: { 'cs-CZ': 'Odpisy dlouhodobého nehmotného a hmotného majetku', 'en-US': 'Depreciation and amortisation' } },
  { number: '562', name: { 'cs-CZ': 'Úroky', 'en-US': 'Interest expense' } },
  { number: '591', name: { 'cs-CZ': 'Daň z příjmů – splatná', 'en-US': 'Income tax – current' } },
  { number: '662', name: { 'cs-CZ': 'Úroky', 'en-US': 'Interest income' } },
  { number: '668', name: { 'cs-CZ': 'Ostatní finanční výnosy', 'en-US': 'Other financial revenue' } },
  { number: '701', name: { 'cs-CZ': 'Počáteční účet rozvažný', 'en-US': 'Opening balance account' } },
  { number: '702', name: { 'cs-CZ': 'Konečný účet rozvažný', 'en-US': 'Closing balance account' } },
  { number: '710', name: { 'cs-CZ': 'Účet zisků a ztrát', 'en-US': 'Profit and loss account' } },
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
