import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import { partnerLocation, vatReportingFields, type VatLineContext } from './vat.js';

const base: VatLineContext = { side: 'sale', orgCountry: 'CZ', partnerCountry: 'CZ', partnerVatNo: 'CZ1', totalLeg: dec(1000), rate: dec(21), reverseCharge: false, supply: 'goods' };
const f = (over: Partial<VatLineContext>) => vatReportingFields({ ...base, ...over });

describe('VAT reporting fields (Czech defaults, architecture §9)', () => {
  it.each([
    ['domestic sale 21 %', {}, { tax_return_base_out: '1', tax_return_amount_out: '1', tax_control_statement: 'A.5' }],
    ['domestic sale 12 %', { rate: dec(12) }, { tax_return_base_out: '2', tax_return_amount_out: '2', tax_control_statement: 'A.5' }],
    ['domestic sale > 10 000 with VAT id', { totalLeg: dec('10000.01') }, { tax_control_statement: 'A.4' }],
    ['domestic sale of exactly 10 000', { totalLeg: dec(10000) }, { tax_control_statement: 'A.5' }],
    ['domestic sale > 10 000 without VAT id', { totalLeg: dec(20000), partnerVatNo: null }, { tax_control_statement: 'A.5' }],
    ['domestic reverse-charge sale', { reverseCharge: true }, { tax_return_base_out: '25', tax_return_amount_out: null, tax_control_statement: 'A.1' }],
    ['intra-EU goods', { partnerCountry: 'DE', rate: dec(0) }, { tax_return_base_out: '20', tax_eu_sales_report: '0', tax_control_statement: null }],
    ['intra-EU services', { partnerCountry: 'SK', rate: dec(0), supply: 'services' as const }, { tax_return_base_out: '21', tax_eu_sales_report: '3' }],
    ['export', { partnerCountry: 'US', rate: dec(0) }, { tax_return_base_out: '22', tax_eu_sales_report: null }],
    ['domestic purchase 21 %', { side: 'purchase' as const }, { tax_return_base_in: '40', tax_return_amount_claim: '40', tax_control_statement: 'B.3' }],
    ['domestic purchase 12 % > 10 000', { side: 'purchase' as const, rate: dec(12), totalLeg: dec(-12000) }, { tax_return_base_in: '41', tax_control_statement: 'B.2' }],
    ['domestic reverse-charge purchase', { side: 'purchase' as const, reverseCharge: true }, { tax_return_base_out: '10', tax_return_amount_out: '10', tax_return_amount_claim: '43', tax_control_statement: 'B.1' }],
    ['domestic reverse-charge purchase 12 %', { side: 'purchase' as const, reverseCharge: true, rate: dec(12) }, { tax_return_base_out: '11', tax_return_amount_claim: '44' }],
    ['intra-EU acquisition of goods', { side: 'purchase' as const, reverseCharge: true, partnerCountry: 'DE' }, { tax_return_base_out: '3', tax_return_amount_claim: '43', tax_control_statement: 'A.2' }],
    ['service from outside the EU, self-assessed', { side: 'purchase' as const, reverseCharge: true, partnerCountry: 'US', supply: 'services' as const }, { tax_return_base_out: '12', tax_return_amount_out: '12', tax_return_amount_claim: '43', tax_control_statement: 'A.2' }],
    ['service from outside the EU at 12 %', { side: 'purchase' as const, reverseCharge: true, partnerCountry: 'CH', rate: dec(12) }, { tax_return_base_out: '13', tax_return_amount_claim: '44', tax_control_statement: 'A.2' }],
    ['credit note keeps the section of its original', { controlStatementOverride: 'A.4' }, { tax_control_statement: 'A.4' }],
  ])('%s', (_name, over, expected) => {
    expect(f(over as Partial<VatLineContext>)).toMatchObject(expected);
  });

  it('partner location', () => {
    expect(partnerLocation('CZ', null)).toBe('domestic');
    expect(partnerLocation('CZ', 'cz')).toBe('domestic');
    expect(partnerLocation('CZ', 'AT')).toBe('eu');
    expect(partnerLocation('CZ', 'GB')).toBe('third_country');
  });
});
