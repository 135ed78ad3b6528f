import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  RPC_SUBJECTS,
  accountingTransactionPageSchema,
  bankTransactionSchema,
  buildOpenApiDocument,
  deliveryConditionListQuerySchema,
  deliveryConditionPageSchema,
  documentLookupAnswerSchema,
  payoutSchema,
} from '@ledgerline/contracts';
import { requestReply } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';

/**
 * The contracts are the one description of the API: what the services really answer must parse
 * with the response schemas, and parsing must not drop anything (zod strips unknown keys, so an
 * undescribed field would show up as a difference between the answer and its parsed form).
 */
let stack: Stack;
let orgId: number;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
  orgId = (await (await stack.api('/v1/settings/organisation')).json()).id;
});
afterAll(async () => {
  await stack?.close();
});

const DAY = '2026-11-20';
const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21 };

function expectDescribedBy(schema: z.ZodType, answer: unknown) {
  const parsed = schema.safeParse(answer);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 5))).toBe(true);
  expect(parsed.data).toEqual(answer);
}

async function ok(path: string, init?: Parameters<Stack['api']>[1]) {
  const res = await stack.api(path, init);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

describe('real answers validate against the contract response schemas', () => {
  let invoice: { id: number; no: string; total_amount: number };

  beforeAll(async () => {
    invoice = await ok('/v1/sales/invoices', {
      method: 'POST',
      json: {
        customer: { id: 5, business_name: 'Kupující s.r.o.', address: { country: 'CZ' } },
        currency: 'CZK',
        date_issued: DAY,
        items: [{ title: 'Support', qty: 1, rate: 1000, taxes: [VAT21] }],
      },
    });
    expect(invoice.total_amount).toBe(1210);
  });

  it('a matched bank transaction, with match_status and matched_document', async () => {
    const bt = await ok('/v1/finance/bank/transactions', {
      method: 'POST',
      json: { amount: 1000, currency: 'CZK', date_transaction: DAY, paid_record: { type: 'sales_invoice', id: invoice.id } },
    });
    expect(bt).toMatchObject({
      match_status: 'matched',
      matched_document: { type: 'sales_invoice', id: invoice.id, no: invoice.no, amount: 1000, currency: 'CZK' },
    });
    expectDescribedBy(bankTransactionSchema, bt);
    const unmatched = await ok('/v1/finance/bank/transactions', {
      method: 'POST',
      json: { amount: 5, currency: 'CZK', date_transaction: DAY, paid_record: { type: 'sales_invoice', id: 999_999 } },
    });
    expect(unmatched).toMatchObject({ match_status: 'unmatched', matched_document: null });
    expectDescribedBy(bankTransactionSchema, unmatched);
    const list = await ok('/v1/finance/bank/transactions?sort=id');
    for (const e of list.entities) expectDescribedBy(bankTransactionSchema, e);
  });

  it('a payout with a matched line and a fee line', async () => {
    const payout = await ok('/v1/finance/payouts', {
      method: 'POST',
      json: {
        currency: 'CZK',
        date_issued: DAY,
        psp_object_id: 'po_contract',
        lines: [
          { amount: 210, paid_record: { type: 'sales_invoice', id: invoice.id } },
          { amount: -7.5, description: 'Fee', gl_account: { number: '568' } },
        ],
      },
    });
    expect(payout.total_amount).toBe(202.5);
    expect(payout.lines[0]).toMatchObject({ match_status: 'matched', matched_document: { id: invoice.id, amount: 210 } });
    expect(payout.lines[1]).toMatchObject({ match_status: 'none', matched_document: null });
    expectDescribedBy(payoutSchema, payout);
    expectDescribedBy(payoutSchema, await ok(`/v1/finance/payouts/${payout.id}`));
  });

  it('an accounting transaction page, with source, legal_currency and reverses_id', async () => {
    const page = await eventually(async () => {
      const p = await ok(`/v1/accounting/transactions?date_posting=[${DAY};${DAY}]&take=100`);
      return p.entities.length >= 4 ? p : undefined; // invoice, two bank transactions, payout
    }, 15_000, 100);
    const inv = page.entities.find((t: any) => t.type === 'sales_invoice');
    expect(inv).toMatchObject({ source: { type: 'sales_invoice', id: invoice.id, version: 1 }, legal_currency: 'CZK', reverses_id: null });
    expectDescribedBy(accountingTransactionPageSchema, page);
  });

  it('delivery conditions in a culture; culture is in the contract query', async () => {
    const page = await ok('/v1/settings/delivery-conditions?culture=cs-CZ&search=FOB');
    expect(page.total).toBe(1);
    expect(page.entities[0].code).toBe('FOB');
    expectDescribedBy(deliveryConditionPageSchema, page);
    expect(deliveryConditionListQuerySchema.parse({ culture: 'cs-CZ' }).culture).toBe('cs-CZ');
    const bad = await stack.api('/v1/settings/delivery-conditions?culture=' + 'x'.repeat(40));
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors.map((e: { path: string }) => e.path)).toContain('culture');
  });

  it('the document lookup answers of sales and purchase parse with the shared answer schema', async () => {
    const bus = stack.services.finance!.deps.bus;
    const found = await requestReply(bus, RPC_SUBJECTS.salesDocumentLookup, orgId, { type: 'sales_invoice', no: invoice.no });
    expect(found).toMatchObject({ found: true, type: 'sales_invoice', id: invoice.id, total_amount: 1210, currency: 'CZK' });
    expectDescribedBy(documentLookupAnswerSchema, found);
    const missing = await requestReply(bus, RPC_SUBJECTS.purchaseDocumentLookup, orgId, { type: 'purchase_bill', id: 424242 });
    expect(missing).toMatchObject({ found: false, type: 'purchase_bill', id: 424242 });
    expectDescribedBy(documentLookupAnswerSchema, missing);
    // a request without id or no is refused by the responder's contract schema
    await expect(requestReply(bus, RPC_SUBJECTS.salesDocumentLookup, orgId, { type: 'sales_invoice' })).rejects.toMatchObject({ status: 502 });
  });

  it('the OpenAPI document describes the extension fields', () => {
    const doc = buildOpenApiDocument() as any;
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.BankTransaction.properties)).toEqual(expect.arrayContaining(['match_status', 'matched_document']));
    expect(Object.keys(schemas.PayoutLine.properties)).toEqual(expect.arrayContaining(['match_status', 'matched_document']));
    expect(Object.keys(schemas.AccountingTransaction.properties)).toEqual(expect.arrayContaining(['source', 'legal_currency', 'reverses_id']));
    const params = doc.paths['/v1/settings/delivery-conditions'].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toContain('culture');
  });
});
