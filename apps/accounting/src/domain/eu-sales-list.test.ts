import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import { euSalesLines, splitVatId } from './eu-sales-list.js';

describe('VAT ids on the EC Sales List', () => {
  it('splits the member state from the number, tidied', () => {
    expect(splitVatId('DE123456789', null)).toEqual({ country: 'DE', number: '123456789' });
    expect(splitVatId('de 123.456.789', 'AT')).toEqual({ country: 'DE', number: '123456789' });
    expect(splitVatId('EL094014201', 'GR')).toEqual({ country: 'EL', number: '094014201' });
    expect(splitVatId('ATU12345678', 'AT')).toEqual({ country: 'AT', number: 'U12345678' });
  });

  it('takes the address country for an id written without its prefix (Greece as EL)', () => {
    expect(splitVatId('123456789', 'de')).toEqual({ country: 'DE', number: '123456789' });
    expect(splitVatId('094014201', 'GR')).toEqual({ country: 'EL', number: '094014201' });
  });
});

describe('EC Sales List lines', () => {
  const row = (vatNo: string, code: string, base: string, id: number, addressCountry: string | null = null) => ({ vatNo, addressCountry, code, base: dec(base), source: { type: 'sales_invoice', id } });

  it('sums per state, VAT id and code, counts the documents, and orders by state and id', () => {
    const lines = euSalesLines([
      row('DE123456789', '3', '800', 1),
      row('SK2020123456', '0', '1000.10', 2),
      row('de 123456789', '3', '200.05', 3),
      row('DE123456789', '0', '50', 3),
      row('DE123456789', '3', '-100', 4),
    ]);
    expect(lines.map((l) => [l.country, l.vatNo, l.code, l.base.toFixed(2), l.documents])).toEqual([
      ['DE', '123456789', '0', '50.00', 1],
      ['DE', '123456789', '3', '900.05', 3],
      ['SK', '2020123456', '0', '1000.10', 1],
    ]);
  });

  it('leaves out a customer whose supplies and credit notes cancel', () => {
    expect(euSalesLines([row('FR12345678901', '0', '500', 1), row('FR12345678901', '0', '-500', 2)])).toEqual([]);
  });
});
