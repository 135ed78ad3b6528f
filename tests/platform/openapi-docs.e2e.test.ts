import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '@ledgerline/contracts';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('API reference served by the gateway', () => {
  it('serves an OpenAPI 3.1 document covering every routed operation, open to anyone', async () => {
    const res = await fetch(`${stack.gateway.url}/openapi.json`);
    expect(res.status).toBe(200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const doc: any = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    // relative: "Try it" calls whichever host the page was opened on (localhost or 127.0.0.1), no CORS
    expect(doc.servers[0].url).toBe('/');
    const ops = Object.entries(doc.paths as Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>).flatMap(
      ([p, methods]) => Object.entries(methods).filter(([m]) => ['get', 'post', 'put', 'delete'].includes(m)).map(([m, op]) => ({ p, m, op })),
    );
    expect(ops.length).toBe(ROUTES.length);
    for (const r of ROUTES) {
      const path = `/v1${r.path.replace(/:([a-z_]+)/g, '{$1}')}`;
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${path}`).toBeTruthy();
      expect(op.operationId).toBe(r.operationId);
      expect(Object.keys(op.responses)).toContain(String(r.successStatus ?? 200));
    }
    const evaluate = doc.paths['/v1/sales/invoices/compliance/evaluate'].post;
    expect(Object.keys(evaluate.responses)).toContain('202');
    const createCn = doc.paths['/v1/sales/credit-notes'].post;
    const ref = createCn.responses['422'].$ref as string;
    const problem = doc.components.responses[ref.split('/').pop()!];
    expect(problem.content['application/problem+json']).toBeTruthy();
  });

  it('lists its tags as a user meets them, each with a line saying what it is for (issue 60)', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const doc: any = await (await fetch(`${stack.gateway.url}/openapi.json`)).json();
    const tags = doc.tags as Array<{ name: string; description?: string }>;
    expect(tags.slice(0, 3).map((t) => t.name)).toEqual(['Invoices', 'Credit notes', 'Items']);
    expect(tags.slice(-3).map((t) => t.name)).toEqual(['Webhooks', 'API keys', 'API clients']);
    // every tag an operation carries is listed once, with a description
    expect(new Set(tags.map((t) => t.name))).toEqual(new Set(ROUTES.map((r) => r.tag)));
    expect(tags.length).toBe(new Set(ROUTES.map((r) => r.tag)).size);
    for (const t of tags) expect(t.description, t.name).toMatch(/^\S.{10,}/);
    const at = (name: string) => tags.findIndex((t) => t.name === name);
    expect(at('Vendor bills')).toBeGreaterThan(at('Credit notes'));
    expect(at('Organisation')).toBeGreaterThan(at('Reporting'));
  });

  it('serves a browsable reference page and its assets without the internet', async () => {
    const page = await fetch(`${stack.gateway.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/openapi.json');
    const asset = await fetch(`${stack.gateway.url}/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
  });

  it('publishes the event catalogue', async () => {
    const doc = (await (await fetch(`${stack.gateway.url}/asyncapi.json`)).json()) as { asyncapi: string };
    expect(doc.asyncapi).toMatch(/^3\./);
    expect(JSON.stringify(doc)).toContain('sales.invoice.posted');
  });
});
