import { expect } from 'vitest';

export const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
export const VAT12 = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12, rate_type: 'reduced', tax_index: 1 };

export const CUSTOMER = {
  id: 501,
  business_name: 'Acme s.r.o.',
  vat_no: 'CZ12345678',
  address: { address1: 'Dlouhá 1', city: 'Praha', postal_code: '11000', country: 'CZ' },
};

export function invoiceBody(over: Record<string, unknown> = {}) {
  return {
    customer: CUSTOMER,
    currency: 'CZK',
    date_issued: '2026-11-20',
    date_due: '2026-12-04',
    items: [
      { title: 'Consulting', qty: 2, rate: 100, taxes: [VAT21], unit: { code: 'h', name: 'hour' } },
      { title: 'Book', qty: 1, rate: 50, taxes: [VAT12], variant: { id: 7, name: 'Hardcover' } },
    ],
    ...over,
  };
}

export async function expectProblem(res: Response | JsonResponse, status: number, code?: string) {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code: code ?? body.code });
  expect(body).toMatchObject({ status, type: expect.stringMatching(/^\/problems\//), title: expect.any(String), detail: expect.any(String) });
  return body as { code: string; detail: string; errors?: Array<{ path: string; code: string; message: string }> };
}

import { randomUUID } from 'node:crypto';
import { buildEnvelope, type EventBus } from '@ledgerline/service-kit';
import type { CloudEvent } from '@ledgerline/contracts';
import type { Stack } from '../support/stack.js';

export function salesBus(stack: Stack): EventBus {
  return stack.services.sales!.deps.bus;
}

/** Every event of `subject` (catalogue name, unprefixed) stored in the stream that owns it, read by sequence. */
export async function readEvents(stack: Stack, stream: 'SALES' | 'FINANCE', subject: string): Promise<CloudEvent<any>[]> {
  const bus = salesBus(stack);
  const name = bus.streamName(stream);
  const info = await bus.jsm.streams.info(name);
  const out: CloudEvent<any>[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(name, { seq }).catch(() => null);
    if (m && m.subject === bus.subject(subject)) out.push(JSON.parse(Buffer.from(m.data).toString('utf8')));
  }
  return out;
}

/** Publishes a `finance.payment.matched` event as the finance service would (CloudEvents envelope). */
export async function publishPaymentMatched(
  stack: Stack,
  orgId: number,
  data: { payment_id: number; document: { type: string; id: number; no?: string | null }; amount: number; currency: string; date?: string },
  opts: { id?: string; msgId?: boolean } = {},
) {
  const bus = salesBus(stack);
  const envelope = buildEnvelope('finance', {
    subject: 'finance.payment.matched',
    orgId,
    resource: String(data.payment_id),
    id: opts.id ?? randomUUID(),
    data: { source: 'bank_transaction', date: '2026-11-21', ...data },
  });
  await bus.js.publish(bus.subject('finance.payment.matched'), JSON.stringify(envelope), opts.msgId === false ? {} : { msgID: envelope.id });
  return envelope;
}

/** A response whose JSON body tests read freely. */
export type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

/** `stack.api` with `json()` typed for tests. */
export function apiOf(stack: () => Stack) {
  return (path: string, init?: Parameters<Stack['api']>[1]) => stack().api(path, init) as Promise<JsonResponse>;
}
