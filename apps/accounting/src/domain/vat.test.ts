import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import { TAX_CATEGORY_CODES, taxCategoryRow, type TaxCategory } from '@ledgerline/core/tax-category';
import { NO_VAT_REPORTING, partnerLocation, vatReportingFields, type VatLineContext, type VatReportingFields } from './vat.js';

const base: VatLineContext = { side: 'sale', orgCountry: 'CZ', partnerCountry: 'CZ', partnerVatNo: 'CZ1', totalLeg: dec(1000), rate: dec(21), category: 'S', supply: 'goods' };
const f = (over: Partial<VatLineContext>) => vatReportingFields({ ...base, ...over });

describe('VAT reporting fields (Czech defaults, architecture §9)', () => {
  it.each([
    ['domestic sale 21 %', {}, { tax_return_base_out: '1', tax_return_amount_out: '1', tax_control_statement: 'A.5' }],
    ['domestic sale 12 %', { rate: dec(12) }, { tax_return_base_out: '2', tax_return_amount_out: '2', tax_control_statement: 'A.5' }],
    ['domestic sale > 10 000 with VAT id', { totalLeg: dec('10000.01') }, { tax_control_statement: 'A.4' }],
    ['domestic sale of exactly 10 000', { totalLeg: dec(10000) }, { tax_control_statement: 'A.5' }],
    ['domestic sale > 10 000 without VAT id', { totalLeg: dec(20000), partnerVatNo: null }, { tax_control_statement: 'A.5' }],
    ['domestic reverse-charge sale', { category: 'AE' as const }, { tax_return_base_out: '25', tax_return_amount_out: null, tax_control_statement: 'A.1' }],
    ['intra-EU goods', { partnerCountry: 'DE', rate: dec(0) }, { tax_return_base_out: '20', tax_eu_sales_report: '0', tax_control_statement: null }],
    ['intra-EU services', { partnerCountry: 'SK', rate: dec(0), supply: 'services' as const }, { tax_return_base_out: '21', tax_eu_sales_report: '3' }],
    ['export', { partnerCountry: 'US', rate: dec(0) }, { tax_return_base_out: '22', tax_eu_sales_report: null }],
    ['domestic purchase 21 %', { side: 'purchase' as const }, { tax_return_base_in: '40', tax_return_amount_claim: '40', tax_control_statement: 'B.3' }],
    ['domestic purchase 12 % > 10 000', { side: 'purchase' as const, rate: dec(12), totalLeg: dec(-12000) }, { tax_return_base_in: '41', tax_control_statement: 'B.2' }],
    ['domestic reverse-charge purchase', { side: 'purchase' as const, category: 'AE' as const }, { tax_return_base_out: '10', tax_return_amount_out: '10', tax_return_amount_claim: '43', tax_control_statement: 'B.1' }],
    ['domestic reverse-charge purchase 12 %', { side: 'purchase' as const, category: 'AE' as const, rate: dec(12) }, { tax_return_base_out: '11', tax_return_amount_claim: '44' }],
    ['intra-EU acquisition of goods', { side: 'purchase' as const, category: 'AE' as const, partnerCountry: 'DE' }, { tax_return_base_out: '3', tax_return_amount_claim: '43', tax_control_statement: 'A.2' }],
    ['service from outside the EU, self-assessed', { side: 'purchase' as const, category: 'AE' as const, partnerCountry: 'US', supply: 'services' as const }, { tax_return_base_out: '12', tax_return_amount_out: '12', tax_return_amount_claim: '43', tax_control_statement: 'A.2' }],
    ['service from outside the EU at 12 %', { side: 'purchase' as const, category: 'AE' as const, partnerCountry: 'CH', rate: dec(12) }, { tax_return_base_out: '13', tax_return_amount_claim: '44', tax_control_statement: 'A.2' }],
    ['credit note keeps the section of its original', { controlStatementOverride: 'A.4' }, { tax_control_statement: 'A.4' }],
  ])('%s', (_name, over, expected) => {
    expect(f(over as Partial<VatLineContext>)).toMatchObject(expected);
  });

  // Every category a line can have, sold at home, to a VAT-registered EU buyer and outside the EU,
  // and bought at home: each report row it lands in (issue 70: AE was missing from row 25 and A.1).
  const SALE_AT_HOME: Record<TaxCategory, Partial<VatReportingFields>> = {
    S: { tax_return_base_out: '1', tax_return_amount_out: '1', tax_control_statement: 'A.5' },
    AA: { tax_return_base_out: '2', tax_return_amount_out: '2', tax_control_statement: 'A.5' },
    Z: NO_VAT_REPORTING,
    E: NO_VAT_REPORTING,
    AE: { ...NO_VAT_REPORTING, tax_return_base_out: '25', tax_control_statement: 'A.1' },
    K: NO_VAT_REPORTING,
    G: NO_VAT_REPORTING,
    O: NO_VAT_REPORTING,
    L: { tax_return_base_out: '1', tax_return_amount_out: '1' },
    M: { tax_return_base_out: '1', tax_return_amount_out: '1' },
  };
  const rateOf = (c: TaxCategory) => (taxCategoryRow(c).noVatCharged ? dec(0) : c === 'AA' ? dec(12) : dec(21));
  it.each(TAX_CATEGORY_CODES.map((c) => [c]))('a domestic sale of category %s', (category) => {
    expect(f({ category, rate: rateOf(category) })).toMatchObject(SALE_AT_HOME[category]);
  });
  it.each(TAX_CATEGORY_CODES.map((c) => [c]))('a sale of category %s to a VAT-registered buyer in another member state is row 20 / 21 and the EC Sales List', (category) => {
    expect(f({ category, rate: rateOf(category), partnerCountry: 'DE', partnerVatNo: 'DE123456789' })).toMatchObject({ tax_return_base_out: '20', tax_eu_sales_report: '0' });
    expect(f({ category, rate: rateOf(category), partnerCountry: 'DE', partnerVatNo: 'DE123456789', supply: 'services' })).toMatchObject({ tax_return_base_out: '21', tax_eu_sales_report: '3' });
  });
  it('a line stated intra-EU (K) is row 20 even when the buyer gave no VAT id', () => {
    expect(f({ category: 'K', rate: dec(0), partnerCountry: 'AT', partnerVatNo: null })).toMatchObject({ tax_return_base_out: '20', tax_eu_sales_report: '0' });
    expect(f({ category: 'Z', rate: dec(0), partnerCountry: 'AT', partnerVatNo: null })).toEqual(NO_VAT_REPORTING);
  });
  it.each(TAX_CATEGORY_CODES.map((c) => [c]))('a sale of category %s outside the EU is row 22', (category) => {
    expect(f({ category, rate: rateOf(category), partnerCountry: 'US' })).toMatchObject({ tax_return_base_out: '22' });
  });
  const PURCHASE_AT_HOME: Record<TaxCategory, Partial<VatReportingFields>> = {
    S: { tax_return_base_in: '40', tax_return_amount_claim: '40', tax_control_statement: 'B.3' },
    AA: { tax_return_base_in: '41', tax_return_amount_claim: '41', tax_control_statement: 'B.3' },
    Z: NO_VAT_REPORTING,
    E: NO_VAT_REPORTING,
    AE: { tax_return_base_out: '10', tax_return_amount_out: '10', tax_return_base_in: '43', tax_return_amount_claim: '43', tax_control_statement: 'B.1' },
    K: NO_VAT_REPORTING,
    G: NO_VAT_REPORTING,
    O: NO_VAT_REPORTING,
    L: { tax_return_base_in: '40' },
    M: { tax_return_base_in: '40' },
  };
  it.each(TAX_CATEGORY_CODES.map((c) => [c]))('a domestic purchase of category %s', (category) => {
    // a reverse-charge bill states the rate the buyer self-assesses at
    const rate = category === 'AE' ? dec(21) : rateOf(category);
    expect(f({ side: 'purchase', category, rate })).toMatchObject(PURCHASE_AT_HOME[category]);
  });

  it('partner location', () => {
    expect(partnerLocation('CZ', null)).toBe('domestic');
    expect(partnerLocation('CZ', 'cz')).toBe('domestic');
    expect(partnerLocation('CZ', 'AT')).toBe('eu');
    expect(partnerLocation('CZ', 'GB')).toBe('third_country');
  });
});
