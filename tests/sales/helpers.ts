
export const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
export const VAT12 = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12, rate_type: 'reduced', tax_index: 1 };

export const CUSTOMER = {
  id: 501,
  business_name: 'Acme s.r.o.',
  vat_no: 'CZ12345678',
  address: { address1: 'Dlouhá 1', city: 'Praha', postal_code: '11000', country: 'CZ' },
};

/** `date` plus `days`, as an ISO calendar date. */
export function daysAfter(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** A two-line invoice, due 14 days after its issue date (another issue date moves the due date with it). */
export function invoiceBody(over: Record<string, unknown> = {}) {
  const issued = typeof over.date_issued === 'string' ? over.date_issued : '2026-11-20';
  // (an issue date a test means to be refused keeps the usual due date, which is valid)
  const due = /^\d{4}-\d\d-\d\d$/.test(issued) && issued >= '1900' && Number.isFinite(Date.parse(`${issued}T00:00:00Z`)) ? daysAfter(issued, 14) : '2026-12-04';
  return {
    customer: CUSTOMER,
    currency: 'CZK',
    date_issued: issued,
    date_due: due,
    items: [
      { title: 'Consulting', qty: 2, rate: 100, taxes: [VAT21], unit: { code: 'h', name: 'hour' } },
      { title: 'Book', qty: 1, rate: 50, taxes: [VAT12], variant: { id: 7, name: 'Hardcover' } },
    ],
    ...over,
  };
}

import { randomUUID } from 'node:crypto';
import { buildEnvelope, type EventBus } from '@ledgerline/service-kit';
import { readEvents as readStreamEvents } from '../support/assertions.js';
import type { Stack } from '../support/stack.js';

export function salesBus(stack: Stack): EventBus {
  return stack.services.sales!.deps.bus;
}

/** Every event of `subject` (catalogue name, unprefixed) stored in the stream that owns it. */
export const readEvents = (stack: Stack, stream: 'SALES' | 'FINANCE', subject: string) => readStreamEvents(stack, 'sales', stream, subject);

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
  await bus.js.publish(bus.subject(`finance.payment.matched.${orgId}`), JSON.stringify(envelope), opts.msgId === false ? {} : { msgID: envelope.id });
  return envelope;
}

export { apiOf, expectProblem, untilAdmitted, type JsonResponse } from '../support/assertions.js';
