import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { readEvents } from '../support/assertions.js';
import { invoiceBody } from '../sales/helpers.js';

/* A client's W3C trace context travels gateway → service → outbox → event → the ledger's event. */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

describe('trace context', () => {
  it("a request's traceparent reaches its event, and the event the ledger emits for it", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
    const res = await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody(), headers: { traceparent } });
    expect(res.status).toBe(200);
    const invoice = await res.json();
    const [event] = (await readEvents(stack, 'sales', 'SALES', 'sales.invoice.posted')).filter((e) => e.data.id === invoice.id);
    expect(event.traceparent).toBe(traceparent);
    const posted = await eventually(async () =>
      (await readEvents(stack, 'accounting', 'ACCOUNTING', 'accounting.transaction.posted')).find((e) => e.data.source_document?.id === invoice.id),
    );
    expect(posted.traceparent?.split('-')[1]).toBe(traceId);
  });
});
