import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { checkUblRules } from '@ledgerline/documents/ubl-rules';
import { eventually, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';
import { ISDOC_XSD, schemaErrors, xmlValues } from '../support/einvoice.js';
import { BUYER, VAT12, VAT21, startEInvoiceStack, type EInvoiceStack } from './einvoice-stack.js';

/*
 * A document's rounding to whole crowns (issue 53, decision 191): the organisation's default for
 * documents in its legal currency, a document's own increment or none, VAT untouched, the rounded
 * total paid in full by a payment of that total, printed, written into UBL (BT-114) and ISDOC,
 * and posted to 548/648.
 */

let stack: Stack;
let post: EInvoiceStack['post'];
let xml: EInvoiceStack['xml'];
const dataDir = mkdtempSync(path.join(tmpdir(), 'll-rounding-'));
const run = promisify(execFile);

beforeAll(async () => {
  ({ stack, post, xml } = await startEInvoiceStack(dataDir, ['sales', 'finance', 'accounting']));
}, 60_000);
afterAll(async () => stack?.close());

/** 1 000.33 + 21 % = 1 210.40: a total that is not whole crowns. */
const body = (over: Record<string, unknown> = {}) => ({
  customer: BUYER,
  currency: 'CZK',
  date_issued: '2026-11-20',
  date_due: '2026-12-04',
  buyer_reference: 'R-1',
  items: [{ title: 'Konzultace', qty: 1, rate: 1000.33, taxes: [VAT21] }],
  ...over,
});

async function setOrganisationRounding(value: number | null) {
  const res = await stack.api('/v1/settings/organisation', { method: 'PUT', json: { rounding_increment: value } });
  expect(res.status, await res.clone().text()).toBe(200);
  expect((await res.json()).rounding_increment).toBe(value);
  // sales reads the default from its replica of the profile, fed by settings' event
  const em = stack.services.sales!.deps.orm.em.fork();
  await eventually(async () => {
    const [row] = await sqlRows<{ v: string | null }>(em, "select profile->>'rounding_increment' as v from kit_organisations where profile->>'name' = 'Dodavatel a.s.'");
    return row !== undefined && (row.v === null ? value === null : Number(row.v) === value);
  }, 10_000);
}

const ledgerRows = async (type: string, id: number) => {
  const entry = await eventually(async () => {
    const page = await (await stack.api('/v1/accounting/transactions?take=50')).json();
    return page.entities?.find((t: any) => t.type === type && t.source?.id === id);
  }, 15_000);
  return entry.rows.map((r: any) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit.toFixed(2)}`)).sort();
};

describe('rounding a sales document to whole crowns', () => {
  it('the organisation setting: shown, changed, refused when unusable, and null by default', async () => {
    const before = await (await stack.api('/v1/settings/organisation')).json();
    expect(before.rounding_increment).toBeNull();
    for (const bad of [0, -1, 20, 0.00001, '1', true, [1]]) {
      await expectProblem(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { rounding_increment: bad } }), 400);
    }
    expect((await (await stack.api('/v1/settings/organisation')).json()).rounding_increment).toBeNull();
    await setOrganisationRounding(0.05);
    await setOrganisationRounding(null);
  });

  it('with the organisation rounding to whole crowns: 1 210.40 is asked as 1 210, VAT unchanged, paid in full by 1 210, posted with 0.40 to 548', async () => {
    await setOrganisationRounding(1);
    const invoice = await post('/v1/sales/invoices', body());
    expect(invoice).toMatchObject({
      subtotal_amount: 1000.33,
      tax_amount: 210.07,
      rounding_increment: 1,
      rounding_amount: -0.4,
      rounding_amount_leg: -0.4,
      total_amount: 1210,
      total_amount_leg: 1210,
      amount_due: 1210,
    });
    expect(invoice.taxes).toEqual([expect.objectContaining({ tax_base: 1000.33, tax_amount: 210.07 })]);
    expect(await (await stack.api(`/v1/sales/invoices/${invoice.id}`)).json()).toMatchObject({ rounding_amount: -0.4, total_amount: 1210 });
    expect(await ledgerRows('sales_invoice', invoice.id)).toEqual(['Cr 343 210.07', 'Cr 604 1000.33', 'Dr 311 1210.00', 'Dr 548 0.40']);

    // a payment of the rounded total pays it in full
    const bt = await stack.api('/v1/finance/bank/transactions', {
      method: 'POST',
      json: { account_number: '2400123456/2010', currency: 'CZK', date_transaction: '2026-11-25', amount: 1210, paid_record: { type: 'sales_invoice', id: invoice.id } },
    });
    expect(bt.status, await bt.clone().text()).toBe(200);
    await eventually(async () => (await (await stack.api(`/v1/sales/invoices/${invoice.id}`)).json()).payment_status === 'paid', 15_000);
    expect(await (await stack.api(`/v1/sales/invoices/${invoice.id}`)).json()).toMatchObject({ amount_paid: 1210, amount_due: 0 });

    // a credit note of the whole invoice is rounded the same way and credits exactly its total
    const credit = await post('/v1/sales/credit-notes', body({ credited_doc_id: invoice.id }));
    expect(credit).toMatchObject({ rounding_amount: -0.4, total_amount: 1210 });
    expect(await ledgerRows('sales_credit_note', credit.id)).toEqual(['Cr 311 1210.00', 'Cr 648 0.40', 'Dr 343 210.07', 'Dr 604 1000.33']);
  });

  it('the default rounds documents in the legal currency only; a document names its own increment, or null for none', async () => {
    await setOrganisationRounding(1);
    const euro = await post('/v1/sales/invoices', body({ currency: 'EUR', fx_rate: 25.125 }));
    expect(euro).toMatchObject({ rounding_increment: null, rounding_amount: 0, total_amount: 1210.4 });
    const none = await post('/v1/sales/invoices', body({ rounding_increment: null }));
    expect(none).toMatchObject({ rounding_increment: null, rounding_amount: 0, total_amount: 1210.4 });
    expect(await ledgerRows('sales_invoice', none.id)).toEqual(['Cr 343 210.07', 'Cr 604 1000.33', 'Dr 311 1210.40']);
    // a euro invoice rounded to 0.50 on its own: the rounding converted at its rate and posted as a gain
    const half = await post('/v1/sales/invoices', body({ currency: 'EUR', fx_rate: 25.125, rounding_increment: 0.5, items: [{ title: 'X', qty: 1, rate: 100.4, taxes: [VAT21] }] }));
    // 100.40 + 21.08 = 121.48 → 121.50; in crowns 2 522.55 + 529.64 + 0.50 (0.02 × 25.125)
    expect(half).toMatchObject({ subtotal_amount: 100.4, tax_amount: 21.08, rounding_amount: 0.02, total_amount: 121.5, subtotal_amount_leg: 2522.55, tax_amount_leg: 529.64, rounding_amount_leg: 0.5, total_amount_leg: 3052.69 });
    expect(await ledgerRows('sales_invoice', half.id)).toEqual(['Cr 343 529.64', 'Cr 604 2522.55', 'Cr 648 0.50', 'Dr 311 3052.69']);
    // with strict, a sent rounding is compared like every other figure
    await expectProblem(await stack.api('/v1/sales/invoices?strict=true', { method: 'POST', json: body({ rounding_amount: -0.3 }) }), 422, 'derived_figures_mismatch');
    const strict = await stack.api('/v1/sales/invoices?strict=true', { method: 'POST', json: body({ rounding_amount: -0.4, total_amount: 1210 }) });
    expect(strict.status, await strict.clone().text()).toBe(200);
    await setOrganisationRounding(null);
    expect(await post('/v1/sales/invoices', body())).toMatchObject({ rounding_amount: 0, total_amount: 1210.4 });
  });

  it('an unusable increment is 400 naming it, and nothing is stored', async () => {
    const count = async () => (await (await stack.api('/v1/sales/invoices?take=1')).json()).total;
    const before = await count();
    for (const [over, path] of [
      [{ rounding_increment: 0 }, 'rounding_increment'],
      [{ rounding_increment: 11 }, 'rounding_increment'],
      [{ rounding_increment: -1 }, 'rounding_increment'],
      [{ rounding_increment: 0.00001 }, 'rounding_increment'],
      [{ rounding_increment: '1' }, 'rounding_increment'],
      [{ rounding_increment: 0.5, precision: 0 }, 'rounding_increment'],
      [{ rounding_increment: 1e308 }, 'rounding_increment'],
    ] as const) {
      const problem = await expectProblem(await stack.api('/v1/sales/invoices', { method: 'POST', json: body(over) }), 400);
      expect(problem.errors?.map((e) => e.path), JSON.stringify(over)).toContain(path);
    }
    expect(await count()).toBe(before);
  });

  it('UBL writes the total with VAT before the rounding and BT-114 beside it, every rule kept; ISDOC its rounding, schema-valid', async () => {
    const invoice = await post('/v1/sales/invoices', body({ rounding_increment: 1, items: [{ title: 'A', qty: 1, rate: 500, taxes: [VAT21] }, { title: 'B', qty: 1, rate: 100.4464, taxes: [VAT12] }] }));
    expect(invoice).toMatchObject({ subtotal_amount: 600.45, tax_amount: 117.05, rounding_amount: 0.5, total_amount: 718 });
    const ubl = await xml('invoices', invoice.id, 'ubl');
    expect(checkUblRules(ubl)).toEqual([]);
    expect(xmlValues(ubl, 'cbc:TaxInclusiveAmount')).toEqual(['717.50']);
    expect(xmlValues(ubl, 'cbc:PayableRoundingAmount')).toEqual(['0.50']);
    expect(xmlValues(ubl, 'cbc:PayableAmount')).toEqual(['718.00']);
    const isdoc = await xml('invoices', invoice.id, 'isdoc');
    expect(schemaErrors(isdoc, ISDOC_XSD())).toEqual([]);
    expect(xmlValues(isdoc, 'TaxInclusiveAmount').at(-1)).toBe('717.50');
    expect(xmlValues(isdoc, 'PayableRoundingAmount')).toEqual(['0.50']);
    expect(xmlValues(isdoc, 'PayableAmount')).toEqual(['718.00']);
    // a document without rounding writes no rounding element
    const plain = await post('/v1/sales/invoices', body({ rounding_increment: null }));
    expect(xmlValues(await xml('invoices', plain.id, 'ubl'), 'cbc:PayableRoundingAmount')).toEqual([]);
    expect(xmlValues(await xml('invoices', plain.id, 'isdoc'), 'PayableRoundingAmount')).toEqual([]);
  });

  it('the printed invoice shows the rounding between VAT and the total', async () => {
    const invoice = await post('/v1/sales/invoices', body({ rounding_increment: 1, document_locale: 'cs-CZ' }));
    const res = await stack.api(`/v1/sales/invoices/${invoice.id}/pdf`);
    expect(res.status).toBe(200);
    const file = path.join(dataDir, 'rounded.pdf');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const text = (await run('pdftotext', ['-layout', file, '-'])).stdout;
    expect(text).toMatch(/Zaokrouhlení\s+-0,40/);
    const lines = text.split('\n');
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    expect(at(/^\s*DPH\s+210,07/)).toBeLessThan(at(/Zaokrouhlení/));
    expect(at(/Zaokrouhlení/)).toBeLessThan(at(/Celkem\s+1\s?210,00/));
  });
});
