import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type ServiceKey, type Stack } from '../support/stack.js';
import { checkPrometheusText } from '../support/prometheus-text.js';
import { invoiceBody } from '../sales/helpers.js';

/* Every process's /metrics is valid Prometheus text: one family per name, as promtool checks. */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
  // some traffic, so counters, histograms and consumers have samples
  await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() });
  await stack.api('/v1/sales/invoices');
}, 60_000);
afterAll(async () => stack?.close());

describe('/metrics', () => {
  it('the checker refuses what promtool refuses', () => {
    const twice = '# HELP a_total x\n# TYPE a_total counter\na_total 1\n# HELP a_total x\n# TYPE a_total counter\na_total{c="1"} 2\n';
    expect(checkPrometheusText(twice).problems.join('\n')).toMatch(/second HELP line for metric name a_total/);
    expect(checkPrometheusText('a{b="1} 2\n').problems).toHaveLength(1);
    expect(checkPrometheusText('# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\nh_sum 0.5\nh_count 1\n').problems).toEqual([]);
  });

  const processes: Array<ServiceKey | 'gateway'> = ['gateway', 'settings', 'sales', 'purchase', 'finance', 'accounting'];
  it.each(processes)('%s answers valid Prometheus text with one family per name', async (name) => {
    const url = name === 'gateway' ? stack.gateway.url : stack.services[name]!.url;
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const { problems, families } = checkPrometheusText(await res.text());
    expect(problems).toEqual([]);
    expect(families.get('ledgerline_http_requests_total')?.type).toBe('counter');
    if (name !== 'gateway') expect(families.has('ledgerline_outbox_backlog')).toBe(true);
  });

  it('shows an operator the backlogs and lags: outbox age, consumer pending and event age, pool use, webhook backlog', async () => {
    const text = async (name: ServiceKey) => (await fetch(`${stack.services[name]!.url}/metrics`)).text();
    const sales = await text('sales');
    expect(sales).toMatch(/^ledgerline_outbox_oldest_unsent_age_seconds \d/m);
    expect(sales).toMatch(/^ledgerline_db_pool_connections\{state="used"\} \d+$/m);
    expect(sales).toMatch(/^ledgerline_db_pool_connections\{state="waiting"\} 0$/m);
    // the ledger's lag: the invoice event reached the accounting consumer and was posted
    await eventually(async () => /^ledgerline_consumer_event_age_seconds_count\{consumer="accounting-sales-invoice-posted"\} [1-9]/m.test(await text('accounting')), 10_000);
    const accounting = await text('accounting');
    expect(accounting).toMatch(/^ledgerline_consumer_pending_messages\{consumer="accounting-sales-invoice-posted"\} 0$/m);
    expect(accounting).toMatch(/^ledgerline_consumer_event_age_seconds_bucket\{consumer="accounting-sales-invoice-posted",le="300"\} [1-9]/m);
    const settings = await text('settings');
    expect(settings).toMatch(/^ledgerline_webhook_deliveries_pending \d+$/m);
    expect(settings).toMatch(/^ledgerline_webhook_oldest_pending_age_seconds \d/m);
  });

  it("shows V8's collections by kind and the heap by space, so an operator sees full collections come too often", async () => {
    const minors = async () => {
      const text = await (await fetch(`${stack.services.sales!.url}/metrics`)).text();
      const { problems, families } = checkPrometheusText(text);
      expect(problems).toEqual([]);
      expect(families.get('nodejs_gc_collections_total')?.type).toBe('counter');
      expect(families.get('nodejs_gc_pause_seconds_total')?.type).toBe('counter');
      expect(text).toMatch(/^nodejs_heap_space_used_bytes\{space="old_space"\} [1-9]\d*$/m);
      return Number(/^nodejs_gc_collections_total\{kind="minor"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await minors();
    // the services run in this process: 200 MB of short-lived garbage makes young-generation collections
    let kept = 0;
    for (let i = 0; i < 2_000; i++) kept += Array.from({ length: 1_000 }, (_, k) => ({ k })).length;
    expect(kept).toBe(2_000_000);
    await eventually(async () => (await minors()) > before, 5_000);
  });
});
