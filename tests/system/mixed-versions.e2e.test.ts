import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '@ledgerline/service-kit';
import { salesService } from '../../apps/sales/src/service.js';
import { accountingService } from '../../apps/accounting/src/service.js';
import { checkLedger, rebuildLedger } from '../../apps/accounting/src/events/rebuild.js';
import { eventually, isolation, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok } from '../support/assertions.js';
import { freePort } from '../support/ports.js';
import { checkOutPreviousRelease, stopProcess, type PreviousRelease } from '../support/previous-release.js';
import { billBody, vendorCreditBody } from '../purchase/fixtures.js';

/*
 * Teams deploy the services one at a time, so for a while the previous release runs next to
 * HEAD. Here the previous release's sales and accounting (checked out from its tag into a
 * worktree and started from it) run beside HEAD's settings, purchase and finance: the old sales
 * writes October's documents, then sales is upgraded to HEAD in place and writes the rest, while
 * the old accounting books them all from the stream. Then accounting is upgraded too, and HEAD's
 * accounting rebuilds the ledger from that stream (written by both sales versions). The ledger,
 * the trial balance and the VAT return read the same at each step, and the same as a system that
 * ran HEAD alone.
 */

const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
const VAT12 = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12, rate_type: 'reduced', tax_index: 1 };
const RC = { tax_code: 'RC', tax_name: 'Reverse charge (services)', tax_rate: 0, rate_type: 'services', tax_index: 0 };
const CUSTOMER = { id: 9201, business_name: 'Odběratel s.r.o.', vat_no: 'CZ11223344', address: { country: 'CZ' } };
const EU_CUSTOMER = { id: 9202, business_name: 'Kunde GmbH', vat_no: 'DE123456789', address: { country: 'DE' } };

type Api = Stack['api'];
const post = async (api: Api, path: string, json: unknown) => ok(await api(path, { method: 'POST', json }));

/** What the old sales writes (with HEAD's purchase and finance beside it): four ledger entries. */
async function firstDocuments(api: Api): Promise<{ invoiceId: number; billId: number }> {
  const sold = await post(api, '/v1/sales/invoices', {
    customer: CUSTOMER,
    currency: 'CZK',
    date_issued: '2026-10-05',
    date_due: '2026-12-31',
    items: [
      { title: 'Consulting', qty: 4, rate: 250.35, taxes: [VAT21] },
      { title: 'Handbook', qty: 2, rate: 249.99, taxes: [VAT12] },
    ],
  });
  await post(api, '/v1/sales/invoices', { customer: EU_CUSTOMER, currency: 'CZK', date_issued: '2026-10-12', date_due: '2026-12-31', items: [{ title: 'Remote support', qty: 1, rate: 800, taxes: [RC] }] });
  const bill = await post(api, '/v1/purchase/bills', billBody({ date_issued: '2026-10-08', date_due: '2026-10-22', vendor_doc_no: 'MIX-OCT', items: [{ description: 'Laptop', qty: 1, rate: 2000, taxes: [VAT21] }] }));
  await post(api, '/v1/finance/bank/transactions', { amount: 1290, currency: 'CZK', date_transaction: '2026-10-28', paid_record: { type: 'sales_invoice', id: sold.id } });
  return { invoiceId: sold.id, billId: bill.id };
}

/** What HEAD's sales writes after the upgrade, one document crediting an invoice the old sales wrote: three more. */
async function laterDocuments(api: Api, first: { invoiceId: number; billId: number }): Promise<void> {
  await post(api, '/v1/sales/credit-notes', { customer: CUSTOMER, currency: 'CZK', date_issued: '2026-10-20', credited_doc_id: first.invoiceId, items: [{ title: 'Discount', qty: 1, rate: 100, taxes: [VAT21] }] });
  await post(api, '/v1/sales/invoices', { customer: CUSTOMER, currency: 'CZK', date_issued: '2026-11-02', date_due: '2026-12-31', rounding_increment: 1, items: [{ title: 'Consulting', qty: 3, rate: 33.3, taxes: [VAT21] }] });
  await post(api, '/v1/purchase/vendor-credits', vendorCreditBody({ date_issued: '2026-10-25', credited_doc_id: first.billId, vendor_doc_no: 'MIX-OCT-CR', items: [{ description: 'Discount', qty: 1, rate: 200, taxes: [VAT21] }] }));
}
const ENTRIES = 7;

/** The books as a user reads them: every ledger entry (rows), October–November's trial balance and October's VAT return. */
async function books(api: Api) {
  const page = await ok(await api('/v1/accounting/transactions?take=1000'));
  const ledger = page.entities
    .map((t: any) => ({
      type: t.type,
      source: t.source?.id ?? null,
      date: t.date_posting ?? t.date,
      rows: t.rows.map((r: any) => `${r.gl_account.number} ${r.debit ? `Dr ${r.debit}` : `Cr ${r.credit}`}`).sort(),
    }))
    .sort((a: any, b: any) => `${a.type} ${a.source}`.localeCompare(`${b.type} ${b.source}`));
  const tb = await ok(await api('/v1/reporting/financial/trial-balance/1/export/json?date_posting=[2026-10-01;2026-11-30]', { method: 'POST', json: [] }));
  const trialBalance = tb.rows.map((r: any) => ({ account: r.gl_account.number, debit: r.debit, credit: r.credit })).sort((a: any, b: any) => a.account.localeCompare(b.account));
  const { filed: _filed, ...vatReturn } = await ok(await api('/v1/reporting/tax/vat-return?date_from=2026-10-01&date_to=2026-10-31'));
  return { ledger, trialBalance, vatReturn };
}

const ledgerOf = async (api: Api, entries: number) =>
  eventually(async () => {
    const page = await ok(await api('/v1/accounting/transactions?take=1000'));
    return page.entities.length === entries ? page : null;
  }, 20_000);

let previous: PreviousRelease;
let mixed: Stack;
const headServices: RunningService<any>[] = [];
const opts = { legalCurrency: 'CZK', orgCountry: 'CZ' };

beforeAll(async () => {
  previous = await checkOutPreviousRelease();
}, 360_000);
afterAll(async () => {
  for (const s of headServices) await s.close().catch(() => undefined);
  await mixed?.close();
  previous?.remove();
});

describe(`the previous release beside HEAD`, () => {
  it('an old accounting books what old and new sales write, a new accounting rebuilds it from their stream, and the books equal a HEAD-only run', async () => {
    const ports = { sales: await freePort(), accounting: await freePort() };
    const shared = { ...isolation(), INTERNAL_TOKEN: randomBytes(16).toString('hex') };
    mixed = await startStack({
      services: ['purchase', 'finance'],
      env: { ...shared, SALES_URL: `http://127.0.0.1:${ports.sales}`, ACCOUNTING_URL: `http://127.0.0.1:${ports.accounting}` },
    });
    const processEnv = (name: 'sales' | 'accounting') => ({ ...mixed.env, PORT: String(ports[name]), HOST: '127.0.0.1' });
    let oldSales: ChildProcess | null = await previous.start('sales', processEnv('sales'));
    const oldAccounting = await previous.start('accounting', processEnv('accounting'));

    // October's first documents from the old sales, booked by the old accounting
    const first = await firstDocuments(mixed.api);
    await ledgerOf(mixed.api, 4);

    // sales upgraded in place: HEAD's sales on the same database, port and stream
    await stopProcess(oldSales);
    oldSales = null;
    const headSales = await startService(salesService, processEnv('sales'));
    headServices.push(headSales);
    await laterDocuments(mixed.api, first);
    await ledgerOf(mixed.api, ENTRIES);
    const bookedByOld = await books(mixed.api);

    // accounting upgraded in place: HEAD's accounting migrates the old one's database, finds
    // nothing a rebuild from the stream would change, and rebuilds it to the same books
    await stopProcess(oldAccounting);
    const headAccounting = await startService(accountingService, processEnv('accounting'));
    headServices.push(headAccounting);
    const check = await checkLedger(headAccounting.deps.orm, headAccounting.deps.bus, 1, opts);
    expect(check).toMatchObject({ events: ENTRIES, transactions: ENTRIES, rebuilt: ENTRIES, missing: [], extra: [], changed: [], unpostable: [] });
    expect(await rebuildLedger(headAccounting.deps.orm, headAccounting.deps.bus, 1, opts)).toMatchObject({ orgId: 1, events: ENTRIES, transactions: ENTRIES });
    const rebuiltByHead = await books(mixed.api);
    expect(rebuiltByHead).toEqual(bookedByOld);

    // the same documents on HEAD alone
    const alone = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
    try {
      await laterDocuments(alone.api, await firstDocuments(alone.api));
      await ledgerOf(alone.api, ENTRIES);
      expect(await books(alone.api)).toEqual(bookedByOld);
    } finally {
      await alone.close();
    }

    // and the figures are the ones the documents call for
    expect(bookedByOld.vatReturn).toMatchObject({
      rows: [
        { row: '1', base: 901.4, tax: 189.29 },
        { row: '2', base: 499.98, tax: 60 },
        { row: '21', base: 800, tax: 0 },
        { row: '40', base: 1800, tax: 378 },
      ],
      entries: 5,
    });
  }, 240_000);
});
