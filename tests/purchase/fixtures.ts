import type { Stack } from '../support/stack.js';

/** Request bodies and helpers shared by the purchase and finance end-to-end tests. */
export type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

/** `stack.api` whose answers parse to `any` (test assertions inspect them freely). */
export function apiOf(get: () => Stack) {
  return (path: string, init?: Parameters<Stack['api']>[1]) => get().api(path, init) as Promise<JsonResponse>;
}
export const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
export const VAT12 = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12, rate_type: 'reduced', tax_index: 1 };
export const ACME = { id: 501, business_name: 'ACME Supplies s.r.o.', vat_no: 'CZ12345678' };
export const GLOBEX = { id: 502, business_name: 'Globex a.s.', vat_no: 'CZ87654321' };
export const PURCHASE_TYPE = { id: 1, name: 'purchase' };

export function billBody(overrides: Record<string, unknown> = {}) {
  return {
    type: PURCHASE_TYPE,
    vendor: ACME,
    currency: 'CZK',
    date_issued: '2026-03-15',
    date_due: '2026-03-29',
    vendor_doc_no: 'ACME-2026-0042',
    items: [
      { description: 'Paper', qty: 2, rate: 100, taxes: [VAT21] },
      { description: 'Books', qty: 1, rate: 50, taxes: [VAT12] },
    ],
    ...overrides,
  };
}

export function vendorCreditBody(overrides: Record<string, unknown> = {}) {
  return {
    type: PURCHASE_TYPE,
    vendor: ACME,
    currency: 'CZK',
    date_issued: '2026-03-20',
    vendor_doc_no: 'ACME-CR-7',
    items: [{ description: 'Returned goods', qty: 1, rate: 1000, tax_deduction_ratio: 1, net_deduction_ratio: 1, taxes: [VAT21] }],
    ...overrides,
  };
}

export async function expectProblem(res: Response | JsonResponse, status: number, code?: string) {
  const { expect } = await import('vitest');
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text);
  expect(body).toMatchObject({ status, type: expect.stringMatching(/^\/problems\//), title: expect.any(String), detail: expect.any(String) });
  if (code) expect(body.code).toBe(code);
  return body as { code: string; detail: string; errors?: Array<{ path: string; message: string; code: string }> };
}
