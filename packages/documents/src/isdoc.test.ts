import { describe, expect, it } from 'vitest';
import { isdocXml, splitStreet, type IsdocDocument } from './isdoc.js';

describe('splitStreet', () => {
  it('takes the trailing house number (with orientation number and letter) apart from the street', () => {
    expect(splitStreet('Náměstí 5')).toEqual({ street: 'Náměstí', buildingNumber: '5' });
    expect(splitStreet('Hlavná 12/3a')).toEqual({ street: 'Hlavná', buildingNumber: '12/3a' });
    expect(splitStreet('Nám. Míru 1250-7')).toEqual({ street: 'Nám. Míru', buildingNumber: '1250-7' });
    expect(splitStreet('Ulice 28. října 4')).toEqual({ street: 'Ulice 28. října', buildingNumber: '4' });
  });
  it('keeps a line without a trailing number whole', () => {
    expect(splitStreet('Dlouhá')).toEqual({ street: 'Dlouhá', buildingNumber: null });
    expect(splitStreet('12 Main Street')).toEqual({ street: '12 Main Street', buildingNumber: null });
    expect(splitStreet(null)).toEqual({ street: null, buildingNumber: null });
  });
});

const party = { name: 'A & B', registrationId: null, address: { country: 'CZ', countryName: 'Česko' } };
const base: IsdocDocument = {
  kind: 'invoice',
  number: 'FV1',
  uuid: '0eaa8d17-e672-40f3-adfa-8567e8d09dbe',
  issueDate: '2026-11-20',
  vatApplicable: true,
  taxesIncluded: false,
  localCurrency: 'CZK',
  seller: party,
  buyer: party,
  lines: [{ description: 'X', quantity: 2, net: { document: '10', local: '10' }, tax: { document: '2.1', local: '2.1' }, rate: 21 }],
  taxSubtotals: [{ rate: 21, taxable: { document: 10, local: 10 }, tax: { document: 2.1, local: 2.1 } }],
  totals: { taxExclusive: { document: 10, local: 10 }, taxAmount: { document: 2.1, local: 2.1 }, taxInclusive: { document: 12.1, local: 12.1 }, paid: { document: 0, local: 0 }, payable: { document: 12.1, local: 12.1 } },
  precision: 2,
};

describe('isdocXml', () => {
  it('writes the required elements even when empty, the UUID upper case, text escaped', () => {
    const xml = isdocXml(base);
    expect(xml).toContain('<UUID>0EAA8D17-E672-40F3-ADFA-8567E8D09DBE</UUID>');
    expect(xml).toContain('<ElectronicPossibilityAgreementReference/>');
    expect(xml).toContain('<PartyIdentification>\n        <ID/>');
    expect(xml).toContain('<Name>A &amp; B</Name>');
    expect(xml).toContain('<UnitPrice>5</UnitPrice>');
    expect(xml).toContain('<UnitPriceTaxInclusive>6.05</UnitPriceTaxInclusive>');
    expect(xml).not.toContain('Curr>');
    expect(xml).not.toContain('<PaymentMeans>');
  });
  it('a foreign currency: every amount has its …Curr twin, in the order each parent wants it', () => {
    const xml = isdocXml({ ...base, foreign: { code: 'EUR', rate: '25.2', coefficient: 1 }, lines: [{ ...base.lines[0], net: { document: 10, local: 252 } }] });
    expect(xml).toMatch(/<LineExtensionAmountCurr>10.00<\/LineExtensionAmountCurr>\s*<LineExtensionAmount>252.00<\/LineExtensionAmount>/);
    expect(xml).toMatch(/<TaxExclusiveAmount>10.00<\/TaxExclusiveAmount>\s*<TaxExclusiveAmountCurr>10.00<\/TaxExclusiveAmountCurr>/);
    expect(xml).toContain('<ForeignCurrencyCode>EUR</ForeignCurrencyCode>\n  <CurrRate>25.2</CurrRate>\n  <RefCurrRate>1</RefCurrRate>');
  });
  it('a credit note is DocumentType 2 with its original document', () => {
    const xml = isdocXml({ ...base, kind: 'credit_note', original: { number: 'FV0', issueDate: '2026-11-01' } });
    expect(xml).toContain('<DocumentType>2</DocumentType>');
    expect(xml).toMatch(/<OriginalDocumentReference id="original">\s*<ID>FV0<\/ID>\s*<IssueDate>2026-11-01<\/IssueDate>\s*<\/OriginalDocumentReference>/);
  });
});
