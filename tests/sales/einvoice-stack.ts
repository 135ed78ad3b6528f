import { expect } from 'vitest';
import fc from 'fast-check';
import { eventually, startStack, type ServiceKey, type Stack } from '../support/stack.js';

/*
 * The stack the e-invoice tests (UBL and ISDOC out) share: sales with an organisation that has
 * everything a Peppol or ISDOC document names (VAT id, registration, Peppol id, address, IBAN),
 * mail written as files, and a buyer with the same.
 */

export const BUYER = {
  business_name: 'Odběratel & Syn s.r.o.',
  vat_no: 'CZ87654321',
  reg_no: '87654321',
  peppol_id: '9929:CZ87654321',
  email: 'faktury@odberatel.example',
  address: { address1: 'Dlouhá 1', city: 'Praha', postal_code: '110 00', country: 'CZ' },
};
export const VAT21 = { tax_code: 'S', tax_rate: 21 };
/** The organisation profile a Peppol or ISDOC document needs: VAT id, registration, Peppol id, address, IBAN. */
export const SELLER_PROFILE = {
  name: 'Dodavatel a.s.',
  vat_no: 'CZ12345678',
  reg_no: '12345678',
  peppol_id: '9929:CZ12345678',
  address: { address1: 'Náměstí 5', city: 'Brno', postal_code: '602 00', country: 'CZ' },
  bank_account: { iban: 'CZ6508000000192000145399', bic: 'GIBACZPX' },
};
export const VAT12 = { tax_code: 'S', tax_rate: 12 };

export interface EInvoiceStack {
  stack: Stack;
  /** POSTs `json` and answers the 200 body (anything else fails the test). */
  post: (path: string, json: unknown) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The XML of `GET /v1/sales/{kind}/{id}/{format}`, checked to be a 200 application/xml answer. */
  xml: (kind: 'invoices' | 'credit-notes', id: number, format: 'ubl' | 'isdoc') => Promise<string>;
}

export async function startEInvoiceStack(dataDir: string, services: ServiceKey[] = ['sales']): Promise<EInvoiceStack> {
  // no SMTP server: messages are written as .eml files into DATA_DIR/mail
  const stack = await startStack({ services, env: { DATA_DIR: dataDir, MAIL_FROM: 'billing@dodavatel.example' } });
  const post = async (p: string, json: unknown) => {
    const res = await stack.api(p, { method: 'POST', json });
    expect(res.status, await res.clone().text()).toBe(200);
    return res.json();
  };
  const xml = async (kind: 'invoices' | 'credit-notes', id: number, format: 'ubl' | 'isdoc') => {
    const res = await stack.api(`/v1/sales/${kind}/${id}/${format}`);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    return text;
  };
  const res = await stack.api('/v1/settings/organisation', { method: 'PUT', json: SELLER_PROFILE });
  expect(res.status).toBe(200);
  // sales learns the Peppol profile from settings' event: wait until a complete invoice can be written
  const probe = await post('/v1/sales/invoices', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-01', date_due: '2026-11-15', buyer_reference: 'P', items: [{ title: 'P', qty: 1, rate: 1, taxes: [VAT21] }] });
  await eventually(async () => (await stack.api(`/v1/sales/invoices/${probe.id}/ubl`)).status === 200, 10_000);
  return { stack, post, xml };
}

/** Documents the property tests generate: rates, quarter quantities, discounts, shipping, euros, gross rates, credit notes. */
export const generatedDocuments = fc.record({
  items: fc.array(
    fc.record({
      title: fc.string({ minLength: 1, maxLength: 30 }),
      qty: fc.integer({ min: 1, max: 500 }).map((q) => q / 4),
      rate: fc.integer({ min: 0, max: 2_000_000 }).map((r) => r / 100),
      taxes: fc.constantFrom([VAT21], [VAT12], [{ tax_code: 'S', tax_rate: 15 }], [{ tax_code: 'Z', tax_rate: 0 }], [{ tax_code: 'AE', tax_rate: 0 }], []),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  discount: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
  shipping: fc.option(fc.integer({ min: 1, max: 50_000 }).map((c) => c / 100), { nil: undefined }),
  euro: fc.boolean(),
  credit: fc.boolean(),
  taxesIncluded: fc.boolean(),
});
export type GeneratedDocument = typeof generatedDocuments extends fc.Arbitrary<infer T> ? T : never;

/** The request body of a generated document (an invoice's; a credit note adds what it credits). */
export function generatedBody(d: GeneratedDocument) {
  return {
    customer: BUYER,
    currency: d.euro ? 'EUR' : 'CZK',
    ...(d.euro ? { fx_rate: 24.35 } : {}),
    taxes_included: d.taxesIncluded,
    date_issued: '2026-11-20',
    date_due: '2026-12-04',
    buyer_reference: 'GEN',
    items: d.items,
    ...(d.discount ? { discounts: [{ value_type: 'percentage', value: d.discount }] } : {}),
    ...(d.shipping ? { shipping_charges: [{ title: 'Doprava', amount: d.shipping, taxes: [VAT21] }] } : {}),
  };
}
