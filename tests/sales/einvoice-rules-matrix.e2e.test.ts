import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkUblRules } from '@ledgerline/documents/ubl-rules';
import type { Stack } from '../support/stack.js';
import { eventually } from '../support/stack.js';
import { BUYER, startEInvoiceStack } from './einvoice-stack.js';
import { UBL_CREDIT_NOTE_XSD, UBL_INVOICE_XSD, schemaErrorsOfEach } from '../support/einvoice.js';

/*
 * A matrix of generated documents through the API (issue 53): three sellers (Czech, Slovak,
 * German), two currencies, net and gross prices, line and document discounts, shipping, fractional
 * quantities, a negative line, every VAT category we write but O beside S (exempt, zero, reverse
 * charge, intra-Community, export), invoices and credit notes. Every Peppol document the API
 * answers keeps every EN 16931 and Peppol rule we check (the endpoint checks them before it answers:
 * a document breaking one would be 422) and the UBL schema.
 */

let stack: Stack;
const sellers: Array<{ country: string; key: string; legal: string }> = [];
const dataDir = mkdtempSync(path.join(tmpdir(), 'll-rules-'));

async function seller(country: string, legal: string, vat: string, iban: string): Promise<string> {
  const res = await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: `Seller ${country}`, country, legal_currency: legal } });
  expect(res.status).toBe(200);
  const key = (await res.json()).admin_key.key as string;
  const profile = await stack.api('/v1/settings/organisation', {
    method: 'PUT',
    key,
    json: { name: `Seller ${country}`, vat_no: vat, reg_no: vat.slice(2), peppol_id: `9930:${vat}`, address: { address1: 'Hauptstraße 1', city: 'City', postal_code: '10115', country }, bank_account: { iban } },
  });
  expect(profile.status, await profile.clone().text()).toBe(200);
  return key;
}

beforeAll(async () => {
  ({ stack } = await startEInvoiceStack(dataDir));
  sellers.push({ country: 'CZ', key: stack.adminKey, legal: 'CZK' });
  sellers.push({ country: 'SK', key: await seller('SK', 'EUR', 'SK2020123456', 'SK3111000000002612345678'), legal: 'EUR' });
  sellers.push({ country: 'DE', key: await seller('DE', 'EUR', 'DE123456789', 'DE89370400440532013000'), legal: 'EUR' });
  // the sellers' profiles reach sales by events: wait until each can write a Peppol document
  for (const s of sellers.slice(1)) {
    await eventually(async () => {
      const inv = await stack.api('/v1/sales/invoices', { method: 'POST', key: s.key, json: { customer: BUYER, currency: 'EUR', date_issued: '2026-11-01', date_due: '2026-11-15', buyer_reference: 'P', items: [{ title: 'P', qty: 1, rate: 1, taxes: [{ tax_code: 'S', tax_rate: 20 }] }] } });
      return inv.status === 200 && (await stack.api(`/v1/sales/invoices/${(await inv.json()).id}/ubl`, { key: s.key })).status === 200;
    }, 15_000);
  }
}, 90_000);
afterAll(async () => stack?.close());

const BUYERS = {
  domestic: BUYER,
  eu: { ...BUYER, business_name: 'Kunde GmbH', vat_no: 'ATU12345678', peppol_id: '9914:ATU12345678', address: { address1: 'Ring 1', city: 'Wien', postal_code: '1010', country: 'AT' } },
  export: { ...BUYER, business_name: 'Customer Inc.', vat_no: null, reg_no: '12-3456789', peppol_id: '0060:123456789', address: { address1: '1 Main St', city: 'Boston', postal_code: '02110', country: 'US' } },
};

const line = fc.record({
  title: fc.string({ minLength: 1, maxLength: 20 }).filter((t) => t.trim().length > 0),
  qty: fc.integer({ min: 1, max: 400 }).map((q) => q / 4),
  rate: fc.integer({ min: 1, max: 500_000 }).map((r) => r / 100),
  discount: fc.option(fc.integer({ min: 1, max: 99 }).map((c) => c / 100), { nil: undefined }),
});
const matrix = fc.record({
  seller: fc.integer({ min: 0, max: 2 }),
  foreign: fc.boolean(),
  kind: fc.constantFrom('domestic', 'exempt', 'zero', 'reverse', 'intra', 'export'),
  lines: fc.array(line, { minLength: 1, maxLength: 4 }),
  negative: fc.boolean(),
  documentDiscount: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
  shipping: fc.option(fc.integer({ min: 100, max: 20_000 }).map((c) => c / 100), { nil: undefined }),
  gross: fc.boolean(),
  credit: fc.boolean(),
  rounding: fc.constantFrom(undefined, 1, 0.05, 0.5),
});
type Matrix = typeof matrix extends fc.Arbitrary<infer T> ? T : never;

function body(m: Matrix) {
  const s = sellers[m.seller];
  const standard = s.country === 'CZ' ? 21 : s.country === 'SK' ? 23 : 19;
  const taxes = (i: number) =>
    m.kind === 'domestic' ? [{ tax_code: 'S', tax_rate: i % 2 ? 12 : standard }] : m.kind === 'exempt' ? [{ tax_code: 'E', tax_rate: 0 }] : m.kind === 'zero' ? [{ tax_code: 'Z', tax_rate: 0 }] : m.kind === 'reverse' ? [{ tax_code: 'AE', tax_rate: 0 }] : m.kind === 'intra' ? [{ tax_code: 'K', tax_rate: 0 }] : [{ tax_code: 'G', tax_rate: 0 }];
  const items = m.lines.map((l, i) => ({ title: l.title, qty: l.qty, rate: l.rate, ...(l.discount ? { discount_explicit: Math.min(l.discount, l.rate * l.qty / 2) } : {}), taxes: taxes(i) }));
  // a credit line of a small amount (a returned item)
  if (m.negative) items.push({ title: 'Vratka', qty: 1, rate: -0.5, taxes: taxes(0) });
  const currency = m.foreign ? (s.legal === 'CZK' ? 'EUR' : 'CZK') : s.legal;
  return {
    customer: m.kind === 'intra' ? BUYERS.eu : m.kind === 'export' ? BUYERS.export : BUYER,
    currency,
    ...(currency !== s.legal ? { fx_rate: s.legal === 'CZK' ? 24.35 : 0.041 } : {}),
    taxes_included: m.gross,
    date_issued: '2026-11-20',
    date_due: '2026-12-04',
    buyer_reference: 'MATRIX',
    items,
    ...(m.documentDiscount ? { discounts: [{ value_type: 'percentage', value: m.documentDiscount }] } : {}),
    ...(m.shipping ? { shipping_charges: [{ title: 'Doprava', amount: m.shipping, taxes: taxes(0) }] } : {}),
    ...(m.rounding ? { rounding_increment: m.rounding } : {}),
  };
}

describe('EN 16931 and Peppol rules on a matrix of generated documents', () => {
  it('200 documents of three sellers, every category, net and gross, discounts, shipping, negative lines, credit notes, rounded totals: every one keeps every rule', async () => {
    const seen = new Set<string>();
    // validated against the UBL schemas together once the property has run (one xmllint each)
    const invoices = new Map<string, string>();
    const creditNotes = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(matrix, async (m) => {
        const s = sellers[m.seller];
        const created = await stack.api(m.credit ? '/v1/sales/credit-notes' : '/v1/sales/invoices', { method: 'POST', key: s.key, json: body(m) });
        // a document the API refuses (say a total below zero) is not one to write; none of these should be
        expect(created.status, await created.clone().text()).toBe(200);
        const doc = await created.json();
        const res = await stack.api(`/v1/sales/${m.credit ? 'credit-notes' : 'invoices'}/${doc.id}/ubl`, { key: s.key });
        expect(res.status, await res.clone().text()).toBe(200);
        const xml = await res.text();
        expect(checkUblRules(xml)).toEqual([]);
        (m.credit ? creditNotes : invoices).set(`${s.country} ${m.credit ? 'credit note' : 'invoice'} ${doc.no} (${JSON.stringify(m)})`, xml);
        seen.add(`${s.country}/${m.kind}/${m.credit ? 'credit' : 'invoice'}`);
        if (m.rounding && doc.rounding_amount !== 0) seen.add('rounded');
      }),
      { numRuns: 200, seed: 53 },
    );
    // the matrix reached every seller, category and kind of document
    expect(invoices.size + creditNotes.size).toBe(200);
    expect(schemaErrorsOfEach(invoices, UBL_INVOICE_XSD())).toEqual({});
    expect(schemaErrorsOfEach(creditNotes, UBL_CREDIT_NOTE_XSD())).toEqual({});
    expect(seen.size).toBeGreaterThanOrEqual(30);
    expect(seen.has('rounded')).toBe(true);
  }, 600_000);
});
