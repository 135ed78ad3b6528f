import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/*
 * OpenTelemetry tracing. Spans are made through the global API: a process that registers no
 * tracer provider (the default: OTEL_EXPORTER_OTLP_ENDPOINT unset) gets no-op spans at almost no
 * cost. Context travels explicitly as W3C `traceparent` strings — request header → service →
 * outbox event → consumer — rather than through an async context manager, so every hop is visible
 * in the code that makes it.
 */

const propagator = new W3CTraceContextPropagator();
const headerGetter = {
  keys: (c: Record<string, string>) => Object.keys(c),
  get: (c: Record<string, string>, k: string) => c[k],
};
const headerSetter = { set: (c: Record<string, string>, k: string, v: string) => void (c[k] = v) };

export function tracer() {
  return trace.getTracer('ledgerline');
}

/** The parent context a `traceparent` names (the root when there is none or it does not parse). */
export function contextOf(traceparent: string | null | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, { traceparent }, headerGetter);
}

/** The `traceparent` of a span, or null for a no-op span (no tracer provider registered). */
export function traceparentOf(span: Span): string | null {
  if (!span.isRecording() && !trace.isSpanContextValid(span.spanContext())) return null;
  const carrier: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, headerSetter);
  return carrier.traceparent ?? null;
}

/** Starts a span under the operation a `traceparent` names. */
export function startSpan(name: string, kind: SpanKind, parent: string | null | undefined, attributes: Attributes = {}): Span {
  return tracer().startSpan(name, { kind, attributes }, contextOf(parent));
}

/** Ends a span, recording a failure (an exception or a 5xx) as its error status. */
export function endSpan(span: Span, failure?: unknown): void {
  if (failure !== undefined && failure !== null) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: failure instanceof Error ? failure.message : String(failure) });
    if (failure instanceof Error) span.recordException(failure);
  }
  span.end();
}

export { SpanKind };

/*
 * Database statements are issued deep inside the ORM, where no traceparent is passed by hand, so
 * their parent travels in async context — but only while a span is recording: with tracing off
 * nothing runs inside the store, and the statement hook below returns at once.
 */
const statementParent = new AsyncLocalStorage<string>();

/** Runs `work` so the database statements it issues become children of `span` (when it records). */
export function withStatementsUnder<T>(span: Span, work: () => Promise<T>): Promise<T> {
  if (!span.isRecording()) return work();
  const parent = traceparentOf(span);
  return parent ? statementParent.run(parent, work) : work();
}

/** The span the statements issued here become children of (`withStatementsUnder`), if any. */
export function statementsParent(): string | null {
  return statementParent.getStore() || null;
}

/**
 * Runs `work` so its statements become children of the span a `statementsParent()` answer names
 * (none when null): for work that serves several operations at once, e.g. a consumer's batch
 * under its first event's span.
 */
export function withStatementsUnderParent<T>(parent: string | null, work: () => Promise<T>): Promise<T> {
  // With no parent to set and none to clear (tracing off, or nothing recording), the store is left
  // alone: entering it would turn on Node's async hooks for the life of the process (decision 128).
  if (!parent && !statementParent.getStore()) return work();
  return statementParent.run(parent ?? '', work);
}

interface QueryEventData {
  __knexQueryUid?: string;
  sql?: string;
  method?: string;
}
interface QueryEventSource {
  on(event: 'query', listener: (data: QueryEventData) => void): unknown;
  on(event: 'query-response', listener: (response: unknown, data: QueryEventData) => void): unknown;
  on(event: 'query-error', listener: (error: unknown, data: QueryEventData) => void): unknown;
}

/**
 * The statement without its values: the ORM writes some values into the SQL as literals, and a
 * trace must never carry a customer's name or an amount, so string and number literals become `?`.
 */
export function sanitizeStatement(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/(?<![\w$."])-?\d+(?:\.\d+)?(?![\w"])/g, '?')
    .slice(0, 2000);
}

/**
 * A client span for one SQL statement issued under `withStatementsUnder`, or null when no span
 * records there: `db.query.text` is the statement with its placeholders, never the values bound to them.
 */
export function statementSpan(sql: string, namespace: string, method?: string): Span | null {
  const parent = statementParent.getStore();
  if (!parent) return null;
  const operation = (/^\s*(\w+)/.exec(sql)?.[1] ?? method ?? 'query').toUpperCase();
  return startSpan(`${operation} ${namespace}`, SpanKind.CLIENT, parent, {
    'db.system.name': 'postgresql',
    'db.namespace': namespace,
    'db.operation.name': operation,
    'db.query.text': sanitizeStatement(sql),
  });
}

/** A span per statement the ORM runs through `db` (a knex instance); `sqlRows` opens its own. */
export function traceStatements(db: QueryEventSource, namespace: string): void {
  const open = new Map<string, Span>();
  db.on('query', (data) => {
    if (!data.__knexQueryUid) return;
    const span = statementSpan(data.sql ?? '', namespace, data.method);
    if (span) open.set(data.__knexQueryUid, span);
  });
  const finish = (data: QueryEventData | undefined, failure?: unknown) => {
    const uid = data?.__knexQueryUid;
    const span = uid ? open.get(uid) : undefined;
    if (!span) return;
    open.delete(uid!);
    endSpan(span, failure);
  };
  db.on('query-response', (_response, data) => finish(data));
  db.on('query-error', (error, data) => finish(data, error ?? 'query failed'));
}

/**
 * Exports spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set (the exporter reads the
 * standard OTEL_* variables), named by `service`. Called by a process's entry point, once; answers
 * the function that flushes and stops it, or null when tracing stays off.
 */
export async function startTracing(service: string, env: Record<string, string | undefined> = process.env): Promise<(() => Promise<void>) | null> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? `ledgerline-${service}` }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  trace.setGlobalTracerProvider(provider);
  return () => provider.shutdown();
}
