import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import { controlStatementSections, type ControlStatementRow } from './control-statement.js';

const row = (section: string, id: number, rate: number, base: string, tax: string, over: Partial<ControlStatementRow> = {}): ControlStatementRow => ({
  section,
  source: { type: section.startsWith('A') ? 'sales_invoice' : 'purchase_bill', id },
  documentNo: `D${id}`,
  partnerVatNo: 'CZ11223344',
  dateTaxable: '2026-10-05',
  rate: dec(rate),
  base: dec(base),
  tax: dec(tax),
  ...over,
});
const figures = (f: { base_basic: any; tax_basic: any; base_reduced: any; tax_reduced: any }) => [f.base_basic, f.tax_basic, f.base_reduced, f.tax_reduced].map((v) => v.toFixed(2));

describe('control statement sections', () => {
  it('lists one line per document of A.4 and B.2 with its rates summed, and sums A.5 and B.3 per rate', () => {
    const s = controlStatementSections([
      row('A.4', 1, 21, '10000', '2100'),
      row('A.4', 1, 12, '1000', '120'),
      row('A.5', 2, 21, '100.10', '21.02'),
      row('A.5', 3, 12, '50', '6'),
      row('A.5', 4, 21, '0.20', '0.04'),
      row('B.2', 5, 21, '20000', '4200', { documentNo: 'ACME-1' }),
      row('B.3', 6, 15, '100', '15'),
      row('A.4', 7, 21, '-1000', '-210'),
    ]);
    expect(s.a4.map((d) => [d.source.id, d.documentNo, ...figures(d)])).toEqual([
      [1, 'D1', '10000.00', '2100.00', '1000.00', '120.00'],
      [7, 'D7', '-1000.00', '-210.00', '0.00', '0.00'],
    ]);
    expect(figures(s.a5)).toEqual(['100.30', '21.06', '50.00', '6.00']);
    expect(s.b2.map((d) => [d.documentNo, ...figures(d)])).toEqual([['ACME-1', '20000.00', '4200.00', '0.00', '0.00']]);
    expect(figures(s.b3)).toEqual(['0.00', '0.00', '100.00', '15.00']);
    expect([s.a1, s.b1]).toEqual([[], []]);
  });

  it('reports A.1 bases without tax and B.1 with the tax self-assessed', () => {
    const s = controlStatementSections([row('A.1', 1, 21, '5000', '1050'), row('B.1', 2, 21, '3000', '630')]);
    expect(s.a1.map(figures)).toEqual([['5000.00', '0.00', '0.00', '0.00']]);
    expect(s.b1.map(figures)).toEqual([['3000.00', '630.00', '0.00', '0.00']]);
  });

  it('leaves out a document whose posting and reversal cancel, and a section it does not report', () => {
    const s = controlStatementSections([row('A.4', 1, 21, '10000', '2100'), row('A.4', 1, 21, '-10000', '-2100'), row('A.3', 2, 21, '1', '0.21'), row('A.4', 3, 21, '12000', '2520')]);
    expect(s.a4.map((d) => d.source.id)).toEqual([3]);
  });

  it('keeps two documents of one number apart when they are different documents', () => {
    const s = controlStatementSections([row('B.2', 1, 21, '20000', '4200', { documentNo: 'INV-1' }), row('B.2', 2, 21, '30000', '6300', { documentNo: 'INV-1', partnerVatNo: 'CZ99999999' })]);
    expect(s.b2.map((d) => [d.partnerVatNo, d.base_basic.toFixed(0)])).toEqual([
      ['CZ11223344', '20000'],
      ['CZ99999999', '30000'],
    ]);
  });
});
