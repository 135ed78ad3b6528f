import type { Stack } from '../support/stack.js';

export { apiOf, expectProblem, type JsonResponse } from '../support/assertions.js';
import { readEvents as readStreamEvents } from '../support/assertions.js';

/** Every event of `subject` stored in `stream`, read through the given service's bus. */
export const readEvents = (stack: Stack, via: 'settings' | 'sales', stream: 'SETTINGS' | 'SALES', subject: string) =>
  readStreamEvents(stack, via, stream, subject);

/** Intl puts no-break spaces (U+00A0, U+202F) in formatted numbers; tests compare with plain spaces. */
export const plainSpaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

export const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };

export const CUSTOMER = {
  id: 901,
  business_name: 'Odběratel s.r.o.',
  vat_no: 'CZ87654321',
  email: 'buyer@example.com',
  address: { address1: 'Dlouhá 1', city: 'Praha', postal_code: '11000', country: 'CZ' },
};

export function invoiceBody(over: Record<string, unknown> = {}) {
  return {
    customer: CUSTOMER,
    currency: 'CZK',
    culture: 'cs-CZ',
    date_issued: '2026-11-20',
    date_due: '2026-12-04',
    payment_reference: '20261234',
    bank_account: { id: 1, account_number: '123456789/0100' },
    items: [{ title: 'Konzultace', qty: 1, rate: 100, taxes: [VAT21], unit: { code: 'h', name: 'hodina' } }],
    ...over,
  };
}
