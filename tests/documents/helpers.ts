import { expect } from 'vitest';
import type { CloudEvent } from '@ledgerline/contracts';
import type { Stack } from '../support/stack.js';

/** Every event of `subject` stored in `stream`, read by sequence through the given service's bus. */
export async function readEvents(stack: Stack, via: 'settings' | 'sales', stream: 'SETTINGS' | 'SALES', subject: string): Promise<CloudEvent<any>[]> {
  const bus = stack.services[via]!.deps.bus;
  const name = bus.streamName(stream);
  const info = await bus.jsm.streams.info(name);
  const out: CloudEvent<any>[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(name, { seq }).catch(() => null);
    if (m && m.subject === bus.subject(subject)) out.push(JSON.parse(Buffer.from(m.data).toString('utf8')));
  }
  return out;
}

/** A response whose JSON body tests read freely. */
export type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

/** `stack.api` with `json()` typed for tests. */
export function apiOf(stack: () => Stack) {
  return (path: string, init?: Parameters<Stack['api']>[1]): Promise<JsonResponse> => stack().api(path, init);
}

export async function expectProblem(res: Response | JsonResponse, status: number, code?: string) {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code: code ?? body.code });
  expect(body).toMatchObject({ status, type: expect.stringMatching(/^\/problems\//), title: expect.any(String), detail: expect.any(String) });
  return body as { code: string; detail: string; errors?: Array<{ path: string; code: string; message: string }> };
}

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
