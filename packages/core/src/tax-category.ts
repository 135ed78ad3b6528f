import { Dec, type DecimalInput } from './money.js';
import { TAX_CATEGORY_CODES, SUPPLY_KINDS, type SupplyKind, type TaxCategory } from './tax-category-codes.js';

/*
 * The VAT category of a tax line, decided once (issue 70): EN 16931's UNCL5305 codes, the
 * spellings this API has always taken for them, and what a line's rate, flags and parties say
 * when it names none. Posting, the VAT return, the control statement, the EC Sales List, UBL and
 * ISDOC all read the category this decides; none of them tests a tax code's spelling itself.
 */

export { TAX_CATEGORY_CODES, SUPPLY_KINDS, type SupplyKind, type TaxCategory };

/** What each category means, as data: the one place its properties are written. */
export interface TaxCategoryRow {
  code: TaxCategory;
  name: string;
  /** Other spellings of the category a client may send as `tax_code` or `rate_type` (lower case). */
  aliases: readonly string[];
  /** The code a Peppol UBL document carries (Peppol BIS 3.0 admits no AA: a lower rate is S there). */
  ubl: Exclude<TaxCategory, 'AA'>;
  /** The buyer, not the seller, accounts for the tax (§ 92a and § 108 of the Czech VAT act). */
  reverseCharge: boolean;
  /** The seller charges no VAT on it: an invoice's line of this category has a zero rate. */
  noVatCharged: boolean;
}

export const TAX_CATEGORIES: readonly TaxCategoryRow[] = [
  // a rate type of "standard", "reduced" or "zero" describes a rate, not a category: the rate decides those
  { code: 'S', name: 'Standard rate', aliases: [], ubl: 'S', reverseCharge: false, noVatCharged: false },
  { code: 'AA', name: 'Lower rate', aliases: [], ubl: 'S', reverseCharge: false, noVatCharged: false },
  { code: 'Z', name: 'Zero rated', aliases: [], ubl: 'Z', reverseCharge: false, noVatCharged: true },
  { code: 'E', name: 'Exempt from VAT', aliases: ['exempt'], ubl: 'E', reverseCharge: false, noVatCharged: true },
  { code: 'AE', name: 'Reverse charge', aliases: ['rc', 'reverse_charge', 'reverse-charge', 'reverse charge'], ubl: 'AE', reverseCharge: true, noVatCharged: true },
  { code: 'K', name: 'Intra-Community supply', aliases: ['intra_eu', 'intra-eu', 'intra_community', 'intra-community'], ubl: 'K', reverseCharge: false, noVatCharged: true },
  { code: 'G', name: 'Export outside the EU', aliases: ['export'], ubl: 'G', reverseCharge: false, noVatCharged: true },
  { code: 'O', name: 'Outside the scope of VAT', aliases: ['outside_scope', 'not_subject', 'outside-scope'], ubl: 'O', reverseCharge: false, noVatCharged: true },
  { code: 'L', name: 'Canary Islands general indirect tax', aliases: ['igic'], ubl: 'L', reverseCharge: false, noVatCharged: false },
  { code: 'M', name: 'Ceuta and Melilla tax', aliases: ['ipsi'], ubl: 'M', reverseCharge: false, noVatCharged: false },
];

const BY_CODE: ReadonlyMap<string, TaxCategoryRow> = new Map(TAX_CATEGORIES.map((r) => [r.code, r]));
const BY_SPELLING: ReadonlyMap<string, TaxCategoryRow> = new Map(
  TAX_CATEGORIES.flatMap((r) => [[r.code.toLowerCase(), r] as const, ...r.aliases.map((a) => [a, r] as const)]),
);
/** Older spellings of reverse charge kept working: `RC_21`, `rc-services`, `reverse…` in a code or rate type. */
const REVERSE_CHARGE_PATTERN = /^rc[_-]|reverse/i;

export const EU_COUNTRIES: ReadonlySet<string> = new Set(
  'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '),
);

/** A tax line as any service holds it: what it may say of its category. */
export interface CategorisedLine {
  tax_category?: string | null;
  tax_code?: string | null;
  rate_type?: string | null;
  tax_rate?: DecimalInput | null;
  tax_details?: Record<string, unknown> | null;
}

/** The parties that decide the category of a zero-rated line that names none. */
export interface TaxParties {
  sellerCountry?: string | null;
  buyerCountry?: string | null;
  buyerHasVatId?: boolean;
}

export function isTaxCategory(v: unknown): v is TaxCategory {
  return typeof v === 'string' && BY_CODE.has(v);
}

export function taxCategoryRow(c: TaxCategory): TaxCategoryRow {
  return BY_CODE.get(c)!;
}

function spelled(v: string | null | undefined): TaxCategoryRow | undefined {
  const s = (v ?? '').trim().toLowerCase();
  if (!s) return undefined;
  return BY_SPELLING.get(s) ?? (REVERSE_CHARGE_PATTERN.test(s) ? BY_CODE.get('AE') : undefined);
}

/**
 * The category a line states: its own `tax_category`, a reverse-charge flag in its tax details,
 * a category code or alias as its tax code, else as its rate type; null when it states none (a
 * tax code of the organisation's own, such as `R` for a reduced rate, states none).
 */
export function statedTaxCategory(line: CategorisedLine): TaxCategory | null {
  const own = (line.tax_category ?? '').trim().toUpperCase();
  if (isTaxCategory(own)) return own;
  const details = line.tax_details;
  if (details?.reverse_charge === true) return 'AE';
  if (isTaxCategory(details?.category)) return details.category;
  return (spelled(line.tax_code) ?? spelled(line.rate_type))?.code ?? null;
}

/**
 * The category of a line: the one it states, else a positive rate is standard (S), and a zero
 * rate is an intra-EU supply (K) to a VAT-registered buyer in another member state, an export (G)
 * to a buyer outside the EU, otherwise zero rated (Z).
 */
export function taxCategoryOf(line: CategorisedLine, parties: TaxParties = {}): TaxCategory {
  const stated = statedTaxCategory(line);
  if (stated) return stated;
  if (new Dec(line.tax_rate ?? 0).gt(0)) return 'S';
  const seller = (parties.sellerCountry ?? '').trim().toUpperCase();
  const buyer = (parties.buyerCountry ?? '').trim().toUpperCase();
  if (seller && buyer && seller !== buyer) {
    if (EU_COUNTRIES.has(buyer) && EU_COUNTRIES.has(seller) && parties.buyerHasVatId) return 'K';
    if (!EU_COUNTRIES.has(buyer)) return 'G';
  }
  return 'Z';
}

export const isReverseChargeCategory = (c: TaxCategory): boolean => taxCategoryRow(c).reverseCharge;
export const ublTaxCategory = (c: TaxCategory): TaxCategoryRow['ubl'] => taxCategoryRow(c).ubl;

/**
 * The one category of lines that share a recap row (the same tax code and rate), or the
 * categories that disagree: a recap row is one category, so a document must not mix two under
 * one code and rate.
 */
export function sharedCategory(categories: readonly TaxCategory[]): { category: TaxCategory | null; conflict: TaxCategory[] } {
  const distinct = [...new Set(categories)];
  return distinct.length <= 1 ? { category: distinct[0] ?? null, conflict: [] } : { category: null, conflict: distinct };
}

export const isSupplyKind = (v: unknown): v is SupplyKind => v === 'goods' || v === 'services';
