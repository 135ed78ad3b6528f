import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type ServiceKey, type Stack } from '../support/stack.js';
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
});
