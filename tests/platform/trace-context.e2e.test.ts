import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trace, SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { readEvents } from '../support/assertions.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * A client's W3C trace context travels gateway → service → outbox → event → consumer, and every
 * hop is a span of the same trace (an in-memory exporter stands in for the OTLP collector).
 */
const exporter = new InMemorySpanExporter();
let stack: Stack;
beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  stack = await startStack({ services: ['sales', 'accounting'] });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  trace.disable();
});

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe('trace context', () => {
  it("a request's trace reaches its event and the ledger: gateway, sales, publish and consume spans in one trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    const res = await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody(), headers: { traceparent: `00-${traceId}-${clientSpan}-01` } });
    expect(res.status).toBe(200);
    const invoice = await res.json();

    // published by the outbox relay just after the commit
    const event = await eventually(async () => (await readEvents(stack, 'sales', 'SALES', 'sales.invoice.posted')).find((e) => e.data.id === invoice.id));
    expect(event.traceparent?.split('-')[1]).toBe(traceId);
    const posted = await eventually(async () =>
      (await readEvents(stack, 'accounting', 'ACCOUNTING', 'accounting.transaction.posted')).find((e) => e.data.source_document?.id === invoice.id),
    );
    expect(posted.traceparent?.split('-')[1]).toBe(traceId);

    const spans = await eventually(async () => {
      const mine = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
      return mine.some((s) => s.name === 'consume sales.invoice.posted') ? mine : null;
    });
    const server = spans.filter((s) => s.kind === SpanKind.SERVER && s.name === 'POST /v1/sales/invoices');
    expect(server).toHaveLength(2);
    const gateway = server.find((s) => parentOf(s) === clientSpan)!;
    const sales = server.find((s) => parentOf(s) === gateway.spanContext().spanId)!;
    expect(gateway && sales).toBeTruthy();
    expect(sales.attributes['http.response.status_code']).toBe(200);
    // the event names the sales span; the relay publishes under it; the ledger consumes under the publish
    expect(event.traceparent?.split('-')[2]).toBe(sales.spanContext().spanId);
    const publish = spans.find((s) => s.kind === SpanKind.PRODUCER && s.name === 'publish sales.invoice.posted' && parentOf(s) === sales.spanContext().spanId)!;
    expect(publish).toBeTruthy();
    const consumers = spans.filter((s) => s.kind === SpanKind.CONSUMER && s.name === 'consume sales.invoice.posted' && parentOf(s) === publish.spanContext().spanId);
    const consume = consumers.find((s) => s.attributes['messaging.consumer.group.name'] === 'accounting-sales-invoice-posted')!;
    expect(consume).toBeTruthy();
    // what the ledger published for it continues under the consumer's span
    expect(posted.traceparent?.split('-')[2]).toBe(consume.spanContext().spanId);

    // the statements each one ran are its children: the invoice insert under sales, the ledger's under its consumer
    const statements = (parent: ReadableSpan) => spans.filter((s) => s.kind === SpanKind.CLIENT && parentOf(s) === parent.spanContext().spanId);
    const salesSql = statements(sales);
    expect(salesSql.map((s) => s.attributes['db.operation.name'])).toEqual(expect.arrayContaining(['SELECT', 'WITH']));
    const insert = salesSql.find((s) => String(s.attributes['db.query.text']).includes('insert into sales_documents'))!;
    expect(insert).toBeTruthy();
    expect(insert.attributes['db.system.name']).toBe('postgresql');
    expect(String(insert.attributes['db.namespace'])).toMatch(/_sales$/);
    // placeholders only: the values the ORM writes into its SQL as literals are masked
    const texts = salesSql.map((s) => String(s.attributes['db.query.text']));
    expect(texts.join('\n')).not.toMatch(/'sales_invoice'|"org_id" = \d/);
    expect(texts.join('\n')).toMatch(/"doc_type" = \?/);
    expect(statements(consume).some((s) => String(s.attributes['db.query.text']).includes('ledger_insert_entries('))).toBe(true);
  });
});
