import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { withoutOrmAsyncContext } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { CUSTOMER, VAT21, invoiceBody } from '../sales/helpers.js';

/*
 * No process enables Node's async hooks while it serves (decision 128). On Node 20 the first
 * entry into any AsyncLocalStorage turns them on for the life of the thread, and every promise
 * made afterwards pays for them: 12-15 % of the CPU of a credit note. MikroORM enters one on
 * every flush, transaction and `findAndCount`, Playwright on every call, the kit's tracing
 * around statements; the kit replaces or avoids each while tracing is off.
 *
 * The whole system runs in this process, so every entry into any AsyncLocalStorage here is
 * recorded, whoever makes it, while the stack does a broad share of its work.
 */
const entered: string[] = [];
for (const method of ['run', 'enterWith'] as const) {
  const original = AsyncLocalStorage.prototype[method] as (...args: unknown[]) => unknown;
  (AsyncLocalStorage.prototype as unknown as Record<string, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    const caller = (new Error().stack ?? '').split('\n')[2]?.trim() ?? '?';
    entered.push(`${method} ${caller}`);
    return original.apply(this, args);
  };
}

/** A webhook receiver that answers 204, so the sender's attempts and their bookkeeping run too. */
let receiver: Server;
let receiverUrl = '';
const received: string[] = [];

let stack: Stack;
beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  stack = await startStack({
    services: ['sales', 'purchase', 'finance', 'accounting'],
    env: { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '50' },
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await new Promise((r) => receiver?.close(r));
});

describe('async hooks', () => {
  it("MikroORM's async contexts are replaced, for the version the replacements were written against", () => {
    expect(withoutOrmAsyncContext()).toEqual({ unitOfWorkCommit: true, transactionContext: true });
  });

  it('stay off while the system boots, posts, lists, prints, delivers a webhook and fills the ledger', async () => {
    const ok = async (path: string, init?: Parameters<Stack['api']>[1]) => {
      const res = await stack.api(path, init);
      expect(res.status, `${init?.method ?? 'GET'} ${path}`).toBeLessThan(300);
      return res;
    };
    // an API key (a flush in a transaction) and a webhook endpoint for credit notes
    await ok('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['sales:read'] } });
    const hook = await (await ok('/v1/settings/webhooks', { method: 'POST', json: { url: receiverUrl, events: ['sales.credit_note.posted'] } })).json();

    const invoice = await (await ok('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
    const creditNote = await (
      await ok('/v1/sales/credit-notes', {
        method: 'POST',
        json: { customer: CUSTOMER, currency: 'CZK', date_issued: '2026-11-22', credited_doc_id: invoice.id, items: [{ title: 'Refund', qty: 1, rate: 100, taxes: [VAT21] }] },
      })
    ).json();
    expect(creditNote.total_amount).toBe(121);

    // lists read by `findAndCount`, and the others
    for (const path of ['/v1/lists/items', '/v1/sales/numbering-series', '/v1/settings/security/api-keys', '/v1/settings/webhooks', '/v1/finance/bank/statements', '/v1/sales/invoices', '/v1/finance/bank/transactions']) await ok(path);
    // a PDF, printed by Playwright
    const pdf = await ok(`/v1/sales/invoices/${invoice.id}/pdf`);
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');

    // both documents in the ledger, and the credit note delivered to the endpoint and recorded
    await eventually(async () => (await (await stack.api('/v1/accounting/transactions')).json()).total === 2, 15_000);
    await eventually(async () => {
      const deliveries = (await (await stack.api(`/v1/settings/webhooks/${hook.id}/deliveries`)).json()).entities as Array<{ status: string }>;
      return deliveries.length === 1 && deliveries[0].status === 'succeeded';
    }, 15_000);
    expect(received.some((b) => b.includes(creditNote.no))).toBe(true);

    expect(entered).toEqual([]);
  });

  it('would be seen: the library\'s own findAndCount enters its async context', async () => {
    const orm = stack.services.sales!.deps.orm as MikroORM;
    const em = orm.em.fork();
    em.setFilterParams('tenant', { orgId: 1 });
    await em.findAndCount('Item', {});
    expect(entered.some((e) => e.includes('RawQueryFragment'))).toBe(true);
  });
});
