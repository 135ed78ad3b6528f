import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';
import { einvoiceDir } from '../support/einvoice.js';
import { sqlRows } from '@ledgerline/service-kit';

/*
 * E-invoices in (issue 16): the official Peppol BIS 3.0 examples imported as vendor bills and a
 * vendor credit through the gateway, with their totals, once each; a document whose totals its
 * lines do not give is 422 and nothing is stored; hostile or foreign XML is a clear 400.
 */

let stack: Stack;
const example = (name: string) => readFileSync(path.join(einvoiceDir(), 'examples', name), 'utf8');

/** An organisation keeping its books in EUR (the examples are EUR invoices), with its admin key. */
async function euroOrganisation(name: string): Promise<string> {
  const res = await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name, country: 'SE', legal_currency: 'EUR' } });
  expect(res.status).toBe(200);
  const created = await res.json();
  // purchase learns the organisation's legal currency from settings' event; until then it would ask for a rate
  const em = stack.services.purchase!.deps.orm.em.fork();
  await eventually(async () => {
    const [row] = await sqlRows<{ legal_currency: string }>(em, 'select legal_currency from kit_organisations where org_id = ?', [created.organisation.id]);
    return row?.legal_currency === 'EUR';
  }, 10_000);
  return created.admin_key.key;
}

const importXml = (key: string, xml: string, headers: Record<string, string> = {}) =>
  stack.api('/v1/purchase/bills/import', { method: 'POST', key, body: xml, headers: { 'content-type': 'application/xml', ...headers } });

beforeAll(async () => {
  stack = await startStack({ services: ['purchase', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

describe('importing UBL e-invoices', () => {
  it('the Peppol base example becomes a vendor bill with its totals, posted to the ledger, once', async () => {
    const key = await euroOrganisation('Buyer AS');
    const res = await importXml(key, example('peppol-base-example.xml'));
    expect(res.status, await res.clone().text()).toBe(200);
    const { kind, bill, vendor_credit } = await res.json();
    expect(kind).toBe('bill');
    expect(vendor_credit).toBeNull();
    expect(bill).toMatchObject({
      vendor_doc_no: 'Snippet1',
      currency: 'EUR',
      date_issued: '2017-11-13',
      date_due: '2017-12-01',
      subtotal_amount: 1325,
      total_amount: 1656.25,
      amount_due: 1656.25,
      payment_reference: 'Snippet1',
      bank_account_number: 'IBAN32423940',
      vendor: { business_name: 'SupplierOfficialName Ltd', vat_no: 'GB1232434', peppol_id: '0088:9482348239847239874' },
    });
    // two lines (one returned: −3 days) and the insurance charge
    expect(bill.items.map((i: any) => [i.qty, i.rate, i.amount])).toEqual([
      [7, 400, 2800],
      [-3, 500, -1500],
      [1, 25, 25],
    ]);
    expect(bill.taxes).toEqual([expect.objectContaining({ tax_rate: 25, tax_base: 1325, tax_amount: 331.25 })]);
    const entry = await eventually(async () => {
      const page = await (await stack.api('/v1/accounting/transactions?take=10', { key })).json();
      return page.entities?.find((t: any) => t.type === 'purchase_bill' && t.source?.id === bill.id);
    }, 15_000);
    expect(entry).toMatchObject({ debit: 1656.25, credit: 1656.25 });

    await expectProblem(await importXml(key, example('peppol-base-example.xml')), 409, 'document_already_imported');
    expect((await (await stack.api('/v1/purchase/bills', { key })).json()).total).toBe(1);
  });

  it('the two-rate example keeps 25 % and 15 % apart; the correcting credit note becomes a vendor credit', async () => {
    const key = await euroOrganisation('Two Rates AB');
    const res = await importXml(key, example('peppol-Vat-category-S.xml'));
    expect(res.status, await res.clone().text()).toBe(200);
    const { bill } = await res.json();
    expect(bill).toMatchObject({ subtotal_amount: 7000, total_amount: 8550 });
    expect(bill.taxes.map((t: any) => [t.tax_rate, t.tax_amount])).toEqual([
      [25, 1250],
      [15, 300],
    ]);

    const credit = await importXml(await euroOrganisation('Credited AB'), example('peppol-base-creditnote-correction.xml'));
    expect(credit.status, await credit.clone().text()).toBe(200);
    const body = await credit.json();
    expect(body.kind).toBe('vendor_credit');
    expect(body.vendor_credit).toMatchObject({ vendor_doc_no: 'Snippet1', credited_doc_no: 'Snippet1', currency: 'EUR' });
    expect(body.vendor_credit.total_amount).toBeGreaterThan(0);
  });

  it("the correcting credit note, imported after the invoice it corrects, credits that bill (decision 254)", async () => {
    const key = await euroOrganisation('Corrected AB');
    const invoice = await importXml(key, example('peppol-base-example.xml'));
    expect(invoice.status, await invoice.clone().text()).toBe(200);
    const { bill } = await invoice.json();
    const credit = await importXml(key, example('peppol-base-creditnote-correction.xml'));
    expect(credit.status, await credit.clone().text()).toBe(200);
    const { vendor_credit } = await credit.json();
    // the credit note's BillingReference names the invoice's own number (Snippet1), which the bill recorded as vendor_doc_no
    expect(bill).toMatchObject({ vendor_doc_no: 'Snippet1', total_amount: 1656.25 });
    expect(vendor_credit).toMatchObject({ credited_doc_id: bill.id, credited_doc_no: bill.no, total_amount: 1656.25, currency: 'EUR' });
  });

  it('totals the lines do not give are 422 naming each total, and nothing is stored', async () => {
    const key = await euroOrganisation('Careful AB');
    const tampered = example('peppol-base-example.xml').replace('<cbc:PayableAmount currencyID="EUR">1656.25</cbc:PayableAmount>', '<cbc:PayableAmount currencyID="EUR">1756.25</cbc:PayableAmount>');
    expect(tampered).toContain('1756.25');
    const problem = await expectProblem(await importXml(key, tampered), 422, 'imported_totals_mismatch');
    expect(problem.errors?.map((e) => e.path)).toEqual(['PayableAmount']);
    expect((await (await stack.api('/v1/purchase/bills', { key })).json()).total).toBe(0);
    // and the untampered document still imports: the refusal registered nothing
    expect((await importXml(key, example('peppol-base-example.xml'))).status).toBe(200);
  });

  it('bad XML is a clear 400 and stores nothing: malformed, DOCTYPE with entities, another root, a JSON body', async () => {
    const key = await euroOrganisation('Hostile AB');
    const malformed = await expectProblem(await importXml(key, '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><cbc:ID>1</Invoice>'), 400, 'malformed_xml');
    expect(malformed.detail).toMatch(/line 1/);
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&lol2;</Invoice>`;
    await expectProblem(await importXml(key, bomb), 400, 'xml_doctype_forbidden');
    const xxe = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&e;</Invoice>`;
    await expectProblem(await importXml(key, xxe), 400, 'xml_doctype_forbidden');
    await expectProblem(await importXml(key, '<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>'), 400, 'unsupported_einvoice');
    const noLines = example('peppol-base-example.xml').replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, '');
    const missing = await expectProblem(await importXml(key, noLines), 400, 'invalid_einvoice');
    expect(missing.errors?.[0].path).toBe('InvoiceLine');
    await expectProblem(await stack.api('/v1/purchase/bills/import', { method: 'POST', key, json: { xml: 'no' } }), 400);
    const base = example('peppol-base-example.xml');
    await expectProblem(await importXml(key, base.replace('SupplierTradingName', 'Supplier\u0000Name')), 400, 'invalid_body');
    const huge = await expectProblem(await importXml(key, base.replace('<cbc:InvoicedQuantity unitCode="DAY">7</cbc:InvoicedQuantity>', '<cbc:InvoicedQuantity unitCode="DAY">1234567890123.456789</cbc:InvoicedQuantity>')), 400, 'invalid_einvoice');
    expect(huge.errors?.[0].path).toBe('InvoiceLine[1]/InvoicedQuantity');
    const day = await expectProblem(await importXml(key, base.replace('<cbc:IssueDate>2017-11-13</cbc:IssueDate>', '<cbc:IssueDate>2017-02-30</cbc:IssueDate>')), 400, 'invalid_einvoice');
    expect(day.errors?.[0].path).toBe('IssueDate');
    await expectProblem(await importXml(key, `<a>${'x'.repeat(1_100_000)}</a>`), 413);
    expect((await (await stack.api('/v1/purchase/bills', { key })).json()).total).toBe(0);
  });

  it('a document in another currency than the books is refused with a problem, not stored', async () => {
    // the bootstrap organisation keeps CZK books; the example is in EUR and states no rate
    const res = await importXml(stack.adminKey, example('peppol-base-example.xml'));
    expect([400, 422]).toContain(res.status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await (await stack.api('/v1/purchase/bills')).json()).total).toBe(0);
    // with the rate it posts, its VAT in CZK at that rate
    const withRate = await stack.api('/v1/purchase/bills/import?tax_fx_rate=25.1', { method: 'POST', body: example('peppol-base-example.xml'), headers: { 'content-type': 'application/xml' } });
    expect(withRate.status, await withRate.clone().text()).toBe(200);
    const { bill } = await withRate.json();
    expect(bill).toMatchObject({ currency: 'EUR', total_amount: 1656.25, tax_fx_rate: 25.1 });
    expect(bill.taxes[0]).toMatchObject({ tax_amount: 331.25, tax_amount_leg: 8314.38 });
  });

  it('needs purchase:write', async () => {
    const key = await euroOrganisation('Scoped AB');
    const reader = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', key, json: { name: 'r', scopes: ['purchase:read'] } })).json();
    await expectProblem(await importXml(reader.key, example('peppol-base-example.xml')), 403, 'insufficient_scope');
  });

  it('every official example imports with its totals, into books in EUR and into books in CZK at a given rate (issue 53)', async () => {
    for (const name of ['peppol-base-example.xml', 'peppol-Vat-category-S.xml', 'peppol-base-creditnote-correction.xml']) {
      const xml = example(name);
      const stated = (tag: string) => Number(new RegExp(`<cbc:${tag} currencyID="EUR">([^<]+)<`).exec(xml)![1]);
      for (const [books, query] of [['EUR', ''], ['CZK', '?tax_fx_rate=24.35']] as const) {
        const key = books === 'EUR' ? await euroOrganisation(`${name} EUR`) : (await (await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: `${name} CZK`, country: 'CZ', legal_currency: 'CZK' } })).json()).admin_key.key;
        const res = await stack.api(`/v1/purchase/bills/import${query}`, { method: 'POST', key, body: xml, headers: { 'content-type': 'application/xml' } });
        expect(res.status, `${name} into ${books}: ${await res.clone().text()}`).toBe(200);
        const body = await res.json();
        const doc = body.bill ?? body.vendor_credit;
        expect({ name, books, subtotal: doc.subtotal_amount, total: doc.total_amount }).toEqual({ name, books, subtotal: stated('TaxExclusiveAmount'), total: stated('TaxInclusiveAmount') });
      }
    }
  });

  it("into books in CZK without a rate: the table's rate in force on the document's day, or 422 naming tax_fx_rate and nothing stored (issue 56)", async () => {
    const created = await (await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Table rates s.r.o.', country: 'CZ', legal_currency: 'CZK' } })).json();
    const key = created.admin_key.key;
    const xml = example('peppol-base-example.xml'); // issued 13 November 2017, in EUR
    const refused = await expectProblem(await importXml(key, xml), 422, 'fx_rate_required');
    expect(refused.detail).toContain('No EUR rate to CZK in force on 2017-11-13');
    expect(refused.errors!.map((e) => e.path)).toEqual(['tax_fx_rate']);
    expect((await (await stack.api('/v1/purchase/bills?take=0', { key })).json()).total).toBe(0);
    expect((await stack.api('/v1/settings/exchange-rates/EUR/2017-11-10', { method: 'PUT', key, json: { rate: 25.54 } })).status).toBe(200);
    const res = await importXml(key, xml);
    expect(res.status, await res.clone().text()).toBe(200);
    const { bill } = await res.json();
    // Friday's rate is in force on Monday 13 November
    expect(bill).toMatchObject({ total_amount: 1656.25, tax_fx_rate: 25.54, fx_rate_date: '2017-11-10', fx_rate_source: 'manual' });
  });

  it('a payable amount after a prepayment and a rounding (BT-113, BT-114) imports with the document total', async () => {
    const key = await euroOrganisation('Rounding AB');
    // the base example (1 656.25) with 1 000 prepaid and a rounding of −0.25: 656.00 to pay
    const rounded = example('peppol-base-example.xml')
      .replace('<cbc:PayableAmount currencyID="EUR">1656.25</cbc:PayableAmount>', '<cbc:PrepaidAmount currencyID="EUR">1000.00</cbc:PrepaidAmount><cbc:PayableRoundingAmount currencyID="EUR">-0.25</cbc:PayableRoundingAmount><cbc:PayableAmount currencyID="EUR">656.00</cbc:PayableAmount>');
    expect(rounded).toContain('PayableRoundingAmount');
    const res = await importXml(key, rounded);
    expect(res.status, await res.clone().text()).toBe(200);
    // the bill owes what the document totals after its rounding; what it says was prepaid is kept
    // as stated and is not a payment of ours
    const { bill } = await res.json();
    expect(bill).toMatchObject({ subtotal_amount: 1325, total_amount: 1656, rounding_amount: -0.25, prepaid_amount: 1000, amount_paid: 0, amount_due: 1656 });
    expect((await (await stack.api(`/v1/purchase/bills/${bill.id}`, { key })).json())).toMatchObject({ total_amount: 1656, rounding_amount: -0.25, prepaid_amount: 1000 });
    // the ledger owes the vendor the rounded total; the 0.25 less is a gain on 648
    const entry = await eventually(async () => {
      const page = await (await stack.api('/v1/accounting/transactions?take=10', { key })).json();
      return page.entities?.find((t: any) => t.type === 'purchase_bill' && t.source?.id === bill.id);
    }, 15_000);
    const rows = entry.rows.map((r: any) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit.toFixed(2)}`)).sort();
    expect(rows).toEqual(['Cr 321 1656.00', 'Cr 648 0.25', 'Dr 343 331.25', 'Dr 504 1325.00']);
    // a payable that the rounding does not explain is still refused
    const off = rounded.replace('<cbc:PayableAmount currencyID="EUR">656.00</cbc:PayableAmount>', '<cbc:PayableAmount currencyID="EUR">655.00</cbc:PayableAmount>');
    await expectProblem(await importXml(await euroOrganisation('Rounding AB 2'), off), 422, 'imported_totals_mismatch');
  });

  it('a document addressed to another buyer is 422 naming the mismatch, unless accept_other_buyer says it is meant (issue 53)', async () => {
    const key = await euroOrganisation('Another Buyer AB');
    const setVat = async (vat_no: string | null, peppol_id: string | null = null) => {
      expect((await stack.api('/v1/settings/organisation', { method: 'PUT', key, json: { vat_no, peppol_id } })).status).toBe(200);
      const em = stack.services.purchase!.deps.orm.em.fork();
      await eventually(async () => {
        const [row] = await sqlRows<{ vat: string | null; peppol: string | null }>(em, "select profile->>'vat_no' as vat, profile->>'peppol_id' as peppol from kit_organisations where profile->>'name' = 'Another Buyer AB'");
        return row?.vat === vat_no && row?.peppol === peppol_id;
      }, 10_000);
    };
    const xml = example('peppol-base-example.xml'); // buyer SE4598375937, Peppol 0002:FR23342
    await setVat('SE999999999901');
    const problem = await expectProblem(await importXml(key, xml), 422, 'einvoice_buyer_mismatch');
    expect(problem.errors![0]).toMatchObject({ path: 'AccountingCustomerParty', message: 'VAT id SE4598375937, not ours (SE999999999901)' });
    expect((await (await stack.api('/v1/purchase/bills', { key })).json()).total).toBe(0);
    // meant for us after all
    const accepted = await stack.api('/v1/purchase/bills/import?accept_other_buyer=true', { method: 'POST', key, body: xml, headers: { 'content-type': 'application/xml' } });
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    // and a second time it is the document already imported, whatever the flag
    await expectProblem(await importXml(key, xml), 422, 'einvoice_buyer_mismatch');
    await expectProblem(await stack.api('/v1/purchase/bills/import?accept_other_buyer=true', { method: 'POST', key, body: xml, headers: { 'content-type': 'application/xml' } }), 409, 'document_already_imported');
    // an organisation with no identifier of its own does not judge the buyer
    const ours = await euroOrganisation('Right Buyer AB');
    expect((await importXml(ours, xml.replace(/<cbc:ID>Snippet1<\/cbc:ID>/, '<cbc:ID>Snippet2</cbc:ID>'))).status).toBe(200);
    await expectProblem(await stack.api('/v1/purchase/bills/import?accept_other_buyer=maybe', { method: 'POST', key, body: xml, headers: { 'content-type': 'application/xml' } }), 400);
  });
});
