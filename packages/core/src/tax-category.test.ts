import { describe, expect, it } from 'vitest';
import {
  EU_COUNTRIES,
  TAX_CATEGORIES,
  TAX_CATEGORY_CODES,
  isReverseChargeCategory,
  sharedCategory,
  statedTaxCategory,
  taxCategoryOf,
  ublTaxCategory,
  type TaxCategory,
} from './tax-category.js';

describe('the tax category table', () => {
  it('has one row per UNCL5305 code this API takes, and every spelling names one category', () => {
    expect(TAX_CATEGORIES.map((r) => r.code)).toEqual([...TAX_CATEGORY_CODES]);
    const spellings = TAX_CATEGORIES.flatMap((r) => [r.code.toLowerCase(), ...r.aliases]);
    expect(new Set(spellings).size).toBe(spellings.length);
  });

  it('writes every category to Peppol as a code Peppol BIS 3.0 admits (a lower rate is S)', () => {
    const peppol = new Set(['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M']);
    for (const c of TAX_CATEGORY_CODES) expect(peppol.has(ublTaxCategory(c))).toBe(true);
    expect(ublTaxCategory('AA')).toBe('S');
  });

  it('only AE is reverse charge', () => {
    expect(TAX_CATEGORY_CODES.filter(isReverseChargeCategory)).toEqual(['AE']);
  });

  it('lists the 27 member states', () => {
    expect(EU_COUNTRIES.size).toBe(27);
    expect(EU_COUNTRIES.has('GB')).toBe(false);
  });
});

describe('statedTaxCategory', () => {
  it.each(TAX_CATEGORY_CODES.map((c) => [c]))('takes the code %s in any case, as tax_category, tax_code or rate_type', (code) => {
    expect(statedTaxCategory({ tax_category: code })).toBe(code);
    expect(statedTaxCategory({ tax_code: code.toLowerCase() })).toBe(code);
    expect(statedTaxCategory({ tax_code: ` ${code} ` })).toBe(code);
    expect(statedTaxCategory({ rate_type: code })).toBe(code);
  });

  it.each(TAX_CATEGORIES.flatMap((r) => r.aliases.map((a) => [a, r.code] as const)))('reads the alias %s as %s', (alias, code) => {
    expect(statedTaxCategory({ tax_code: alias })).toBe(code);
    expect(statedTaxCategory({ rate_type: alias.toUpperCase() })).toBe(code);
  });

  it.each([
    [{ tax_code: 'AE', tax_rate: 0 }, 'AE'],
    [{ tax_code: 'RC', tax_rate: 0 }, 'AE'],
    [{ tax_code: 'RC_21' }, 'AE'],
    [{ tax_code: 'rc-services' }, 'AE'],
    [{ rate_type: 'reverse charge (§ 92a)' }, 'AE'],
    [{ tax_code: 'S', tax_details: { reverse_charge: true } }, 'AE'],
    [{ tax_details: { reverse_charge: true } }, 'AE'],
    [{ tax_details: { category: 'K' } }, 'K'],
    // the category a line names itself wins over what its code says
    [{ tax_category: 'K', tax_code: 'RC' }, 'K'],
    [{ tax_category: 'ae' }, 'AE'],
    // an organisation's own codes state nothing: the rate decides
    [{ tax_code: 'R', tax_rate: 12 }, null],
    [{ tax_code: 'S21', tax_rate: 21 }, null],
    [{ tax_code: 'VAT' }, null],
    [{ tax_code: 'S12', rate_type: 'reduced' }, null],
    [{ rate_type: 'standard' }, null],
    [{ tax_code: '' }, null],
    [{ tax_details: { reverse_charge: 'yes' } }, null],
    [{ tax_category: 'XX' }, null],
    [{}, null],
  ] as const)('%j states %s', (line, expected) => {
    expect(statedTaxCategory(line)).toBe(expected);
  });
});

describe('taxCategoryOf', () => {
  const cz = { sellerCountry: 'CZ', buyerCountry: 'CZ', buyerHasVatId: true };
  it.each([
    ['a positive rate without a code', { tax_rate: 21 }, cz, 'S'],
    ['an own code at 12 %', { tax_code: 'R', tax_rate: 12 }, cz, 'S'],
    ['zero at home', { tax_rate: 0 }, cz, 'Z'],
    ['zero to a VAT-registered buyer in another member state', { tax_rate: 0 }, { sellerCountry: 'CZ', buyerCountry: 'DE', buyerHasVatId: true }, 'K'],
    ['zero to a consumer in another member state', { tax_rate: 0 }, { sellerCountry: 'CZ', buyerCountry: 'DE', buyerHasVatId: false }, 'Z'],
    ['zero outside the EU', { tax_rate: 0 }, { sellerCountry: 'CZ', buyerCountry: 'US' }, 'G'],
    ['zero, parties unknown', { tax_rate: 0 }, {}, 'Z'],
    ['stated reverse charge at home', { tax_code: 'AE', tax_rate: 0 }, cz, 'AE'],
    ['stated exempt abroad', { tax_code: 'E', tax_rate: 0 }, { sellerCountry: 'CZ', buyerCountry: 'US' }, 'E'],
    ['a reverse-charge flag on a 21 % bill line', { tax_rate: 21, tax_details: { reverse_charge: true } }, cz, 'AE'],
  ] as const)('%s is %s', (_name, line, parties, expected) => {
    expect(taxCategoryOf(line, parties)).toBe(expected);
  });
});

describe('sharedCategory', () => {
  it('is the one category of lines that agree, and names those that do not', () => {
    expect(sharedCategory([])).toEqual({ category: null, conflict: [] });
    expect(sharedCategory(['AE', 'AE'] as TaxCategory[])).toEqual({ category: 'AE', conflict: [] });
    expect(sharedCategory(['AE', 'Z', 'AE'] as TaxCategory[])).toEqual({ category: null, conflict: ['AE', 'Z'] });
  });
});
