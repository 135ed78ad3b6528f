import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';

/*
 * Issue 52, points 5 and 7, through the gateway: XML nested past the parser's limit was a 500,
 * and a document of 80 000 attributes held finance's event loop for over a second; concurrent
 * replays of a finished Idempotency-Key were 409 instead of the stored answer.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['purchase', 'finance'] });
}, 60_000);
afterAll(async () => stack?.close());

const postXml = (path: string, xml: string) => stack.api(path, { method: 'POST', body: xml, headers: { 'content-type': 'application/xml' } });
const IMPORTERS = ['/v1/finance/bank/statements', '/v1/purchase/bills/import'];

describe('XML that no document we read looks like', () => {
  it('nested deeper than any real document (101 levels, 1.8 KB): 400 malformed_xml naming the limit, not 500', async () => {
    const deep = `<?xml version="1.0"?>${'<a>'.repeat(101)}x${'</a>'.repeat(101)}`;
    for (const path of IMPORTERS) {
      const problem = await expectProblem(await postXml(path, deep), 400, 'malformed_xml');
      expect(problem.detail, path).toMatch(/nests elements more than 64 deep/);
    }
    // also inside a well-formed camt.053 root
    const camt = `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">${'<X>'.repeat(100)}${'</X>'.repeat(100)}</Document>`;
    await expectProblem(await postXml(IMPORTERS[0], camt), 400, 'malformed_xml');
  });

  it('80 000 attributes in 870 KB, on one element or spread over many: 400, and the services keep answering', async () => {
    const oneElement = `<Invoice ${Array.from({ length: 80_000 }, (_, i) => `a${i}="1"`).join(' ')}/>`;
    const spread = `<Invoice>${Array.from({ length: 8_000 }, () => `<e ${Array.from({ length: 10 }, (_, j) => `a${j}="1"`).join(' ')}/>`).join('')}</Invoice>`;
    expect(oneElement.length).toBeGreaterThan(850_000);
    for (const path of IMPORTERS) {
      expect((await expectProblem(await postXml(path, oneElement), 400, 'malformed_xml')).detail).toMatch(/80000 attributes .*at most 64 are read/);
      expect((await expectProblem(await postXml(path, spread), 400, 'malformed_xml')).detail).toMatch(/more than 20000 attributes/);
    }
    const elements = `<Invoice>${'<e/>'.repeat(100_001)}</Invoice>`;
    expect((await expectProblem(await postXml(IMPORTERS[1], elements), 400, 'malformed_xml')).detail).toMatch(/more than 100000 elements/);
    expect((await stack.api('/v1/finance/bank/statements')).status).toBe(200);
  });
});

describe('Idempotency-Key replays sent at once', () => {
  it('20 concurrent replays of a finished request all answer its stored answer', async () => {
    const body = { account_number: 'CZ6508000000192000145399', amount: 12.5, currency: 'CZK', date_transaction: '2026-11-20' };
    const send = () => stack.api('/v1/finance/bank/transactions', { method: 'POST', json: body, headers: { 'idempotency-key': 'replay-storm-1' } });
    const first = await send();
    expect(first.status).toBe(200);
    const original = await first.json();
    const replays = await Promise.all(Array.from({ length: 20 }, send));
    expect(replays.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(replays.every((r) => r.headers.get('idempotent-replayed') === 'true')).toBe(true);
    for (const r of replays) expect(await r.json()).toEqual(original);
    expect((await (await stack.api('/v1/finance/bank/transactions?take=0')).json()).total).toBe(1);
  });
});
