import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { BUYER, startEInvoiceStack, type EInvoiceStack } from '../sales/einvoice-stack.js';
import { billBody } from '../purchase/fixtures.js';
import { COMPANY_FILER } from '../support/tax-filing.js';
import { DPHDP3_XSD, ISDOC_XSD, UBL_INVOICE_XSD, schemaErrors, xmlRecords } from '../support/einvoice.js';

/*
 * The VAT category of a line, decided once and read by every report (issue 70). October: a
 * domestic reverse-charge sale coded AE (EN 16931's code, the one our UBL writes), one flagged by
 * `tax_details.reverse_charge` under an own code, one coded RC as before; a service at 21 %, an
 * exempt sale, an intra-EU service (K) and an export (G); a reverse-charge bill for services. Each
 * lands where a Czech accountant puts it: rows 25 / A.1 / VetaC, 1 / A.5, 21 and the EC Sales
 * List, 22, 10 + 43 / B.1; services on 602 and 518. The UBL and ISDOC of the flagged invoice say
 * reverse charge too. Lines of one code and rate but two categories are refused.
 */

let stack: Stack;
let post: EInvoiceStack['post'];
let xml: EInvoiceStack['xml'];
const OCTOBER = 'date_from=2026-10-01&date_to=2026-10-31';
const AT_CUSTOMER = { business_name: 'Kunde GmbH', vat_no: 'ATU12345678', peppol_id: '9914:ATU12345678', address: { address1: 'Ring 1', city: 'Wien', postal_code: '1010', country: 'AT' } };
const US_CUSTOMER = { business_name: 'Customer Inc.', address: { address1: '1 Main St', city: 'Austin', postal_code: '73301', country: 'US' } };
const BUILDER = { id: 9505, business_name: 'Stavby a.s.', vat_no: 'CZ45274649', address: { country: 'CZ' } };

beforeAll(async () => {
  ({ stack, post, xml } = await startEInvoiceStack(mkdtempSync(path.join(tmpdir(), 'll-categories-')), ['sales', 'purchase', 'accounting']));
  await ok(await stack.api('/v1/settings/tax-filing', { method: 'PUT', json: { ...COMPANY_FILER, reverse_charge_code: '4' } }));
}, 60_000);
afterAll(async () => stack?.close());

const invoice = (customer: unknown, items: unknown[], date = '2026-10-10') => post('/v1/sales/invoices', { customer, currency: 'CZK', date_issued: date, date_due: '2026-12-31', buyer_reference: 'PO-1', items });
const line = (rate: number, tax: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ title: 'Work', qty: 1, rate, taxes: [tax], ...more });
const entryOf = async (type: string, no: string) =>
  eventually(async () => (await ok(await stack.api(`/v1/accounting/transactions?take=1000`))).entities.find((t: any) => t.type === type && t.no === no) ?? null, 15_000);
const accountsOf = (entry: any) => entry.rows.map((r: any) => [r.gl_account.number, r.debit, r.credit]).sort();

describe('the VAT category of a line (issue 70)', () => {
  const docs: Record<string, any> = {};

  it('is stored with every tax line when the document is posted', async () => {
    docs.ae = await invoice(BUYER, [line(80_000, { tax_code: 'AE', tax_rate: 0 })]);
    docs.flagged = await invoice(BUYER, [line(20_000, { tax_code: 'PDP', tax_rate: 0, tax_details: { reverse_charge: true } })]);
    docs.rc = await invoice(BUYER, [line(5_000, { tax_code: 'RC', tax_rate: 0 })]);
    docs.service = await invoice(BUYER, [line(1_000, { tax_code: 'S', tax_rate: 21 }, { supply: 'services' })]);
    docs.exempt = await invoice(BUYER, [line(3_000, { tax_code: 'E', tax_rate: 0 })]);
    docs.intraEu = await invoice(AT_CUSTOMER, [line(2_000, { tax_code: 'K', tax_rate: 0 }, { supply: 'services' })]);
    docs.export = await invoice(US_CUSTOMER, [line(4_000, { tax_code: 'G', tax_rate: 0 })]);
    docs.bill = await post('/v1/purchase/bills', billBody({ vendor: BUILDER, date_issued: '2026-10-20', date_due: '2026-11-20', vendor_doc_no: 'STAV-70', items: [{ description: 'Construction works', qty: 1, rate: 10_000, supply: 'services', taxes: [{ tax_code: 'AE', tax_rate: 21 }] }] }));

    const categories = (d: any) => [...d.items.flatMap((i: any) => i.taxes.map((t: any) => t.tax_category)), ...d.taxes.map((t: any) => t.tax_category)];
    expect(categories(docs.ae)).toEqual(['AE', 'AE']);
    // the line's flag reaches the recap the reports read
    expect(categories(docs.flagged)).toEqual(['AE', 'AE']);
    expect(docs.flagged.items[0].taxes[0].tax_details).toEqual({ reverse_charge: true });
    expect(categories(docs.rc)).toEqual(['AE', 'AE']);
    expect(categories(docs.service)).toEqual(['S', 'S']);
    expect(docs.service.items[0].supply).toBe('services');
    expect(docs.exempt.items[0].supply).toBe('goods');
    expect(categories(docs.exempt)).toEqual(['E', 'E']);
    expect(categories(docs.intraEu)).toEqual(['K', 'K']);
    expect(categories(docs.export)).toEqual(['G', 'G']);
    expect(categories(docs.bill)).toEqual(['AE', 'AE']);
    expect(docs.bill.items[0].supply).toBe('services');
    // GET answers what was stored
    const again = await ok(await stack.api(`/v1/sales/invoices/${docs.flagged.id}`));
    expect(again.taxes[0].tax_category).toBe('AE');
  });

  it('puts each category on its row of the VAT return, its section of the control statement and the EC Sales List', async () => {
    await eventually(async () => ((await ok(await stack.api(`/v1/accounting/transactions?date_posting=[2026-10-01;2026-10-31]&take=0`))).total === 8 ? true : null), 15_000);
    const vat = await ok(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}`));
    expect(vat.rows.map((r: any) => [r.row, r.base, r.tax])).toEqual([
      ['1', 1_000, 210],
      ['10', 10_000, 2_100],
      ['21', 2_000, 0],
      ['22', 4_000, 0],
      ['25', 105_000, 0],
      ['43', 10_000, 2_100],
    ]);
    expect(vat).toMatchObject({ output_tax: 2_310, deductible_tax: 2_100, tax_due: 210, excess_deduction: 0, entries: 8 });

    const statement = await ok(await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}`));
    expect(statement.a1.map((d: any) => [d.partner_vat_no, d.document_no, d.base_basic])).toEqual([
      ['CZ87654321', docs.ae.no, 80_000],
      ['CZ87654321', docs.flagged.no, 20_000],
      ['CZ87654321', docs.rc.no, 5_000],
    ]);
    expect(statement.a5).toEqual({ base_basic: 1_000, tax_basic: 210, base_reduced: 0, tax_reduced: 0 });
    expect(statement.b1.map((d: any) => [d.document_no, d.base_basic, d.tax_basic])).toEqual([['STAV-70', 10_000, 2_100]]);
    expect([statement.a2, statement.a4, statement.b2]).toEqual([[], [], []]);

    const ecsl = await ok(await stack.api(`/v1/reporting/tax/eu-sales-list?${OCTOBER}`));
    expect(ecsl.lines).toEqual([{ country: 'AT', vat_no: 'U12345678', code: '3', base: 2_000, documents: 1 }]);

    // the filings carry it: row 25 in the return's Veta2, A.1 and VetaC in the control statement
    const returnXml = await (await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}&format=epo`)).text();
    expect(schemaErrors(returnXml, DPHDP3_XSD())).toEqual([]);
    expect(xmlRecords(returnXml, 'Veta2')).toEqual([{ pln_sluzby: '2000', pln_vyvoz: '4000', pln_rez_pren: '105000' }]);
    const statementXml = await (await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}&format=epo`)).text();
    expect(xmlRecords(statementXml, 'VetaA1').map((r) => [r.c_evid_dd, r.zakl_dane1, r.kod_pred_pl])).toEqual([
      [docs.ae.no, '80000.00', '4'],
      [docs.flagged.no, '20000.00', '4'],
      [docs.rc.no, '5000.00', '4'],
    ]);
    expect(xmlRecords(statementXml, 'VetaC')[0]).toMatchObject({ pln_rez_pren: '105000.00', rez_pren23: '10000.00' });
  });

  it('dates a filing when it can be filed: the day asked for, else the later of today and the period end', async () => {
    const vetaD = async (query: string) => xmlRecords(await (await stack.api(`/v1/reporting/tax/vat-return?${query}&format=epo`)).text(), 'VetaD')[0];
    const prague = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Prague' }).format(new Date());
    expect((await vetaD(OCTOBER)).d_poddp).toBe(prague.split('-').reverse().join('.'));
    expect((await vetaD(`${OCTOBER}&filed_on=2026-11-25`)).d_poddp).toBe('25.11.2026');
    // a period that has not ended is dated its last day
    expect((await vetaD('date_from=2099-01-01&date_to=2099-01-31')).d_poddp).toBe('31.01.2099');
    const early = await expectProblem(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}&format=epo&filed_on=2026-10-30`), 422, 'filed_before_period_end');
    expect(early.errors!.map((e) => e.path)).toEqual(['filed_on']);
    await expectProblem(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}&format=epo&filed_on=2026-13-01`), 400, 'validation_error');
  });

  it('posts services to 602 and 518, goods to 604, and the reverse-charge bill self-assessed', async () => {
    expect(accountsOf(await entryOf('sales_invoice', docs.service.no))).toEqual([['311', 1_210, 0], ['343', 0, 210], ['602', 0, 1_000]]);
    expect(accountsOf(await entryOf('sales_invoice', docs.exempt.no))).toEqual([['311', 3_000, 0], ['343', 0, 0], ['604', 0, 3_000]]);
    expect(accountsOf(await entryOf('sales_invoice', docs.ae.no))).toEqual([['311', 80_000, 0], ['343', 0, 0], ['604', 0, 80_000]]);
    expect(accountsOf(await entryOf('purchase_bill', docs.bill.no))).toEqual([['321', 0, 10_000], ['343', 0, 2_100], ['343', 2_100, 0], ['518', 10_000, 0]]);
  });

  it('writes the flagged invoice as reverse charge in UBL and ISDOC', async () => {
    const ubl = await xml('invoices', docs.flagged.id, 'ubl');
    expect(schemaErrors(ubl, UBL_INVOICE_XSD())).toEqual([]);
    expect(ubl).toMatch(/<cac:TaxCategory>\s*<cbc:ID>AE<\/cbc:ID>/);
    expect(ubl).toContain('<cbc:TaxExemptionReasonCode>VATEX-EU-AE</cbc:TaxExemptionReasonCode>');
    expect(ubl).toMatch(/<cac:ClassifiedTaxCategory>\s*<cbc:ID>AE<\/cbc:ID>/);
    expect(ubl).not.toMatch(/<cbc:ID>Z<\/cbc:ID>/);
    const isdoc = await xml('invoices', docs.flagged.id, 'isdoc');
    expect(schemaErrors(isdoc, ISDOC_XSD())).toEqual([]);
    expect(isdoc).toMatch(/<TaxCategory>\s*<Percent>0<\/Percent>\s*<LocalReverseChargeFlag>true<\/LocalReverseChargeFlag>\s*<\/TaxCategory>/);
    const exempt = await xml('invoices', docs.exempt.id, 'isdoc');
    expect(exempt).toMatch(/<TaxCategory>\s*<Percent>0<\/Percent>\s*<VATApplicable>false<\/VATApplicable>\s*<\/TaxCategory>/);
  });

  it('refuses lines of one code and rate in two categories, and writes nothing', async () => {
    const before = (await ok(await stack.api('/v1/sales/invoices?take=0'))).total;
    const res = await stack.api('/v1/sales/invoices', {
      method: 'POST',
      json: { customer: BUYER, currency: 'CZK', date_issued: '2026-10-11', items: [line(100, { tax_code: 'PDP', tax_rate: 0 }), line(200, { tax_code: 'PDP', tax_rate: 0, tax_details: { reverse_charge: true } })] },
    });
    const problem = await expectProblem(res, 422, 'tax_category_conflict');
    expect(problem.errors!.map((e) => e.path)).toEqual(['items[0].taxes[0].tax_category', 'items[1].taxes[0].tax_category']);
    expect(problem.detail).toContain('Z on some lines and AE on others');
    expect((await ok(await stack.api('/v1/sales/invoices?take=0'))).total).toBe(before);
    // a category that is not one is a 400 naming the field
    const bad = await stack.api('/v1/sales/invoices', { method: 'POST', json: { customer: BUYER, currency: 'CZK', date_issued: '2026-10-11', items: [line(100, { tax_rate: 0, tax_category: 'XX' })] } });
    expect((await expectProblem(bad, 400, 'validation_error')).errors!.map((e) => e.path)).toEqual(['items[0].taxes[0].tax_category']);
  });

  it("takes what a line supplies from the catalogue item, else the organisation's default", async () => {
    const item = await post('/v1/lists/items', { name: 'Audit', sales_rate: 500, currency: 'CZK', tax_rate: 21, supply: 'services' });
    expect(item.supply).toBe('services');
    const fromItem = await invoice(BUYER, [line(500, { tax_code: 'S', tax_rate: 21 }, { item: { id: item.id } })], '2026-11-05');
    expect(fromItem.items[0].supply).toBe('services');
    expect(accountsOf(await entryOf('sales_invoice', fromItem.no))).toEqual([['311', 605, 0], ['343', 0, 105], ['602', 0, 500]]);

    const profile = await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { default_supply: 'services' } }));
    expect(profile.default_supply).toBe('services');
    // purchase learns the profile from settings' event
    const bill = await eventually(async () => {
      const b = await post('/v1/purchase/bills', billBody({ date_issued: '2026-11-06', date_due: '2026-11-20', vendor_doc_no: `SUP-${Date.now()}`, items: [{ description: 'Cleaning', qty: 1, rate: 1_000, taxes: [{ tax_code: 'S', tax_rate: 21 }] }] }));
      return b.items[0].supply === 'services' ? b : null;
    }, 15_000);
    expect(accountsOf(await entryOf('purchase_bill', bill.no))).toEqual([['321', 0, 1_210], ['343', 210, 0], ['518', 1_000, 0]]);
    // a line that says goods is goods whatever the default
    const goods = await invoice(BUYER, [line(100, { tax_code: 'S', tax_rate: 21 }, { supply: 'goods' })], '2026-11-06');
    expect(goods.items[0].supply).toBe('goods');
    await expectProblem(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { default_supply: 'both' } }), 400, 'validation_error');
  });
});
