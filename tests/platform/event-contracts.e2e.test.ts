import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_DATA_SCHEMAS, SUBJECTS, streamForSubject, type Subject } from '@ledgerline/contracts';
import { eventually, startStack, type ServiceKey, type Stack } from '../support/stack.js';
import { readEvents } from '../support/assertions.js';
import { CUSTOMER, VAT21, invoiceBody } from '../sales/helpers.js';
import { billBody, vendorCreditBody } from '../purchase/fixtures.js';

/*
 * Every event a service puts on the bus round-trips through its contract schema: the data parses,
 * and parsing keeps every field (a field the producer sends but the contract does not declare
 * would be dropped by a consumer that parses with the contract, as the ledger does).
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (path: string, json: unknown) => {
  const res = await stack.api(path, { method: 'POST', json });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};

/** Paths of `data` that are missing from `parsed` (fields the schema does not declare). */
function undeclared(data: unknown, parsed: unknown, path = ''): string[] {
  if (Array.isArray(data)) return data.flatMap((v, i) => undeclared(v, (parsed as unknown[] | undefined)?.[i], `${path}[${i}]`));
  if (data === null || typeof data !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(data)) {
    const p = parsed as Record<string, unknown> | undefined;
    if (!p || !(k in p)) out.push(`${path}.${k}`);
    else out.push(...undeclared(v, p[k], `${path}.${k}`));
  }
  return out;
}

const PRODUCER: Partial<Record<Subject, ServiceKey>> = {
  [SUBJECTS.salesInvoicePosted]: 'sales',
  [SUBJECTS.salesCreditNotePosted]: 'sales',
  [SUBJECTS.salesCreditAllocationRecorded]: 'sales',
  [SUBJECTS.purchaseBillPosted]: 'purchase',
  [SUBJECTS.purchaseVendorCreditPosted]: 'purchase',
  [SUBJECTS.purchaseCreditAllocationRecorded]: 'purchase',
  [SUBJECTS.financeBankTransactionRecorded]: 'finance',
  [SUBJECTS.financePaymentMatched]: 'finance',
  [SUBJECTS.accountingTransactionPosted]: 'accounting',
  [SUBJECTS.accountingJournalEntryPosted]: 'accounting',
  [SUBJECTS.settingsOrganisationUpdated]: 'settings',
};

describe('events round-trip through their contract schemas', () => {
  beforeAll(async () => {
    const invoice = await post('/v1/sales/invoices', invoiceBody({ currency: 'EUR', fx_rate: 25, items: [{ title: 'Work', qty: 2, rate: 100, taxes: [VAT21] }] }));
    const creditNote = await post('/v1/sales/credit-notes', {
      customer: CUSTOMER,
      currency: 'EUR',
      fx_rate: 25,
      date_issued: '2026-11-23',
      credited_doc_id: invoice.id,
      items: [{ title: 'Work', qty: 1, rate: 10, taxes: [VAT21] }],
    });
    const bill = await post('/v1/purchase/bills', billBody());
    const vendorCredit = await post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_id: bill.id, items: [{ description: 'Returned goods', qty: 1, rate: 100, taxes: [VAT21] }] }));
    // a set-off made and taken back on each side
    const allocation = await post(`/v1/sales/credit-notes/${creditNote.id}/allocations`, { invoice_id: invoice.id, amount: 5 });
    expect((await stack.api(`/v1/sales/credit-notes/${creditNote.id}/allocations/${allocation.id}`, { method: 'DELETE' })).status).toBe(200);
    const vendorAllocation = await post(`/v1/purchase/vendor-credits/${vendorCredit.id}/allocations`, { bill_id: bill.id, amount: 5 });
    expect((await stack.api(`/v1/purchase/vendor-credits/${vendorCredit.id}/allocations/${vendorAllocation.id}`, { method: 'DELETE' })).status).toBe(200);
    await post('/v1/finance/bank/transactions', {
      account_number: '2400123456/2010',
      currency: 'EUR',
      fx_rate: 25,
      date_transaction: '2026-11-25',
      amount: 10,
      statement_id: 1,
      order: 1,
      paid_record: { type: 'sales_invoice', id: invoice.id },
    });
    // a journal entry and the entry reversing it
    const accrual = await post('/v1/accounting/journal-entries', { date_posting: '2026-11-30', description: 'Accrual', reference: 'WP-7', lines: [{ account_number: '518', debit: 100 }, { account_number: '389', credit: 100, description: 'Audit' }] });
    await post(`/v1/accounting/journal-entries/${accrual.id}/reverse`, { date_posting: '2026-12-01' });
  }, 30_000);

  it.each(Object.entries(PRODUCER))('%s', async (subject, via) => {
    const events = await eventually(async () => {
      const found = await readEvents(stack, via!, streamForSubject(subject), subject);
      return found.length ? found : null;
    }, 10_000);
    for (const event of events) {
      const parsed = EVENT_DATA_SCHEMAS[subject as Subject].safeParse(event.data);
      expect(parsed.error?.issues ?? []).toEqual([]);
      expect(undeclared(event.data, parsed.data)).toEqual([]);
    }
  });
});
