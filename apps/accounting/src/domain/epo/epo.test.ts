import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import type { ControlStatementDocumentFigures, ControlStatementSections, RateFigures } from '../control-statement.js';
import { controlStatementXml } from './control-statement-epo.js';
import { dicDigits, epoDate, filingPeriod, followUpFields } from './epo-filer.js';
import { euSalesListXml, filedShvLines, followUpRows, shvLines, type ShvLine } from './eu-sales-list-epo.js';
import { vatReturnXml } from './vat-return-epo.js';

const SOFTWARE = { name: 'Ledgerline', version: '1.0.0' };
const VETA_P = { c_ufo: '451', dic: '27074358', typ_ds: 'P' };
const attrs = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<${name}((?:\\s+\\w+="[^"]*")*)\\s*/>`, 'g'))].map((m) => Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((a) => [a[1], a[2]])));

describe('EPO formats', () => {
  it('dates are DD.MM.YYYY and a DIČ is its digits', () => {
    expect(epoDate('2026-03-02')).toBe('02.03.2026');
    expect(dicDigits('CZ27074358')).toBe('27074358');
    expect(dicDigits(' cz 699 000 1234 ')).toBe('6990001234');
    expect(dicDigits('DE811907980')).toBe('811907980');
    expect(dicDigits('CZ12345678901')).toBeNull();
    expect(dicDigits(null)).toBeNull();
  });

  it('a filing is for a calendar month, or a calendar quarter where quarters are allowed', () => {
    expect(filingPeriod('2026-02-01', '2026-02-28', false)).toEqual({ rok: 2026, mesic: 2 });
    expect(filingPeriod('2024-02-01', '2024-02-29', false)).toEqual({ rok: 2024, mesic: 2 });
    expect(filingPeriod('2026-10-01', '2026-12-31', true)).toEqual({ rok: 2026, ctvrt: 4 });
    for (const [from, to, q] of [
      ['2026-10-01', '2026-12-31', false],
      ['2026-02-01', '2026-02-27', false],
      ['2026-11-01', '2027-01-31', true],
      ['2026-02-01', '2026-04-30', true],
      ['2025-12-01', '2026-12-31', true],
    ] as const) {
      expect(() => filingPeriod(from, to, q), `${from}…${to}`).toThrowError(expect.objectContaining({ code: 'filing_period_invalid', status: 422 }));
    }
  });

  it('a follow-up says why: N the day found or the call, E the call', () => {
    expect(followUpFields('B', '2026-11-26')).toEqual({ dateFound: null, callReference: null });
    expect(followUpFields('N', '2026-11-26')).toEqual({ dateFound: '26.11.2026', callReference: null });
    expect(followUpFields('N', undefined, 'X/1')).toEqual({ dateFound: null, callReference: 'X/1' });
    expect(followUpFields('E', undefined, 'X/1')).toEqual({ dateFound: null, callReference: 'X/1' });
    expect(() => followUpFields('N', undefined)).toThrowError(expect.objectContaining({ status: 400 }));
    expect(() => followUpFields('E', '2026-11-26')).toThrowError(expect.objectContaining({ status: 400 }));
  });
});

describe('the control statement (DPHKH1)', () => {
  // sections as the database sums them (tests/accounting/control-statement-rules.test.ts)
  const NONE: RateFigures = { base_basic: '0', tax_basic: '0', base_reduced: '0', tax_reduced: '0', base_second_reduced: '0', tax_second_reduced: '0' };
  const doc = (id: number, figures: Partial<RateFigures>): ControlStatementDocumentFigures => ({
    source: { type: 'sales_invoice', id },
    documentNo: `D${id}`,
    partnerVatNo: 'CZ11223344',
    dateTaxable: '2023-06-15',
    ...NONE,
    ...figures,
  });
  const filing = (listed: Partial<ControlStatementSections>, reverseChargeCode: string | null = null) =>
    controlStatementXml({
      sections: { a1: [], a2: [], a4: [], a5: NONE, b1: [], b2: [], b3: NONE, ...listed },
      vetaP: VETA_P,
      period: { rok: 2023, mesic: 6 },
      kind: 'B',
      filedOn: '25.07.2023',
      dateFound: null,
      callReference: null,
      reverseChargeCode,
      software: SOFTWARE,
    });

  it('puts 15 % on the first reduced rate and 10 % on the second (until 2023)', () => {
    const xml = filing({ a4: [doc(1, { base_basic: '10000', tax_basic: '2100', base_reduced: '3000', tax_reduced: '400', base_second_reduced: '1000', tax_second_reduced: '100' })] });
    expect(attrs(xml, 'VetaA4')[0]).toMatchObject({ zakl_dane1: '10000.00', dan1: '2100.00', zakl_dane2: '2000.00', dan2: '300.00', zakl_dane3: '1000.00', dan3: '100.00' });
    expect(attrs(xml, 'VetaC')[0]).toMatchObject({ obrat23: '10000.00', obrat5: '3000.00' });
  });

  it('A.1 needs the subject code of the reverse charge; without one the filing is refused', () => {
    const a1 = [doc(1, { base_basic: '5000' })];
    expect(() => filing({ a1 })).toThrowError(expect.objectContaining({ code: 'tax_filing_incomplete' }));
    expect(attrs(filing({ a1 }, '4'), 'VetaA1')).toEqual([{ c_radku: '1', dic_odb: '11223344', c_evid_dd: 'D1', duzp: '15.06.2023', zakl_dane1: '5000.00', kod_pred_pl: '4' }]);
  });

  it('a listed document whose partner has no Czech VAT id is refused, naming it', () => {
    const noVat = { ...doc(7, { base_basic: '20000', tax_basic: '4200' }), partnerVatNo: null };
    expect(() => filing({ a4: [noVat] })).toThrowError(expect.objectContaining({ code: 'filing_partner_vat_id_missing', message: expect.stringContaining('D7') }));
  });

  it('an empty month is a filing with its header only', () => {
    const xml = filing({});
    expect(attrs(xml, 'VetaD')).toHaveLength(1);
    expect(attrs(xml, 'VetaC')).toEqual([]);
  });
});

describe('the VAT return (DPHDP3)', () => {
  const filed = {
    rows: [
      { row: '1', base: 30000, tax: 6300 },
      { row: '40', base: 36000, tax: 7560 },
      { row: '99', base: 1, tax: 1 },
    ],
    output_tax: 6300,
    deductible_tax: 7560,
    tax_due: 0,
    excess_deduction: 1260,
  };
  const filing = (form: 'B' | 'D', lastFiledTax = null as ReturnType<typeof dec> | null) =>
    vatReturnXml({ filed, vetaP: VETA_P, period: { rok: 2026, mesic: 10 }, form, filedOn: '25.11.2026', dateFound: form === 'D' ? '26.11.2026' : null, lastFiledTax, software: SOFTWARE });

  it('writes each row on its attributes, the deductions in full, and the result', () => {
    const xml = filing('B');
    expect(attrs(xml, 'Veta1')).toEqual([{ obrat23: '30000', dan23: '6300' }]);
    expect(attrs(xml, 'Veta4')).toEqual([{ pln23: '36000', odp_tuz23_nar: '7560', odp_sum_nar: '7560' }]);
    expect(attrs(xml, 'Veta6')).toEqual([{ dan_zocelk: '6300', odp_zocelk: '7560', dano_da: '0', dano_no: '1260' }]);
  });

  it('a follow-up (D) states its tax against the last one filed in row 66, not the result', () => {
    const xml = filing('D', dec(-3360));
    expect(attrs(xml, 'VetaD')[0]).toMatchObject({ dapdph_forma: 'D', d_zjist: '26.11.2026' });
    expect(attrs(xml, 'Veta6')).toEqual([{ dan_zocelk: '6300', odp_zocelk: '7560', dano: '2100' }]);
  });
});

describe('the EC Sales List (DPHSHV)', () => {
  const lines = shvLines([
    { country: 'DE', vat_no: '123456789', code: '3', base: 5000.4, documents: 2 },
    { country: 'SK', vat_no: '2020123456', code: '0', base: 2000.5, documents: 1 },
    { country: 'AT', vat_no: 'U12345678', code: '3', base: -100.5, documents: 1 },
  ]);

  it('states each line in whole crowns, half away from zero', () => {
    expect(lines.map((l) => l.pln_hodnota)).toEqual(['5000', '2001', '-101']);
  });

  it("a follow-up cancels what changed or went and states it again, adds what is new, and leaves the rest", () => {
    const xml = euSalesListXml({ rows: lines, vetaP: VETA_P, period: { rok: 2026, mesic: 10 }, form: 'R', filedOn: '25.11.2026', software: SOFTWARE });
    const filed = filedShvLines(xml);
    expect(filed.map((l) => [l.k_stat, l.pln_hodnota])).toEqual([
      ['DE', '5000'],
      ['SK', '2001'],
      ['AT', '-101'],
    ]);
    const now: ShvLine[] = [{ ...lines[0], pln_hodnota: '7000', pln_pocet: '3' }, lines[2], { k_stat: 'FR', c_vat: '12345678901', k_pln_eu: '0', pln_pocet: '1', pln_hodnota: '900' }];
    expect(followUpRows(filed, now)).toEqual([
      { k_stat: 'DE', c_vat: '123456789', k_pln_eu: '3', k_storno: 'A' },
      now[0],
      { k_stat: 'SK', c_vat: '2020123456', k_pln_eu: '0', k_storno: 'A' },
      now[2],
    ]);
    expect(followUpRows(filed, shvLines([
      { country: 'DE', vat_no: '123456789', code: '3', base: 5000.4, documents: 2 },
      { country: 'SK', vat_no: '2020123456', code: '0', base: 2000.5, documents: 1 },
      { country: 'AT', vat_no: 'U12345678', code: '3', base: -100.5, documents: 1 },
    ]))).toEqual([]);
  });
});
