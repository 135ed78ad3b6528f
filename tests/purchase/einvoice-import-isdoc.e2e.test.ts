import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';
import { ISDOC_XSD, schemaErrors } from '../support/einvoice.js';
import { secondOrganisation } from '../finance/support.js';
import { BUYER, VAT12, VAT21, startEInvoiceStack, type EInvoiceStack } from '../sales/einvoice-stack.js';

/*
 * ISDOC in (issue 16): what one organisation sends as ISDOC, another imports as a vendor bill or
 * vendor credit with the same figures, reaching its ledger once; a document in euros states its
 * own rate to the crown; credit notes written with negative amounts read the same as positive
 * ones; a document type that is no bill, or totals its lines do not give, are refused.
 */

let stack: Stack;
let seller: EInvoiceStack;
let buyerKey: string;

const importXml = (xml: string, key = buyerKey) => stack.api('/v1/purchase/bills/import', { method: 'POST', key, body: xml, headers: { 'content-type': 'application/xml' } });

beforeAll(async () => {
  seller = await startEInvoiceStack(mkdtempSync(path.join(tmpdir(), 'll-isdoc-in-')), ['sales', 'purchase', 'accounting']);
  stack = seller.stack;
  const buyer = await secondOrganisation(stack, 'Odběratel & Syn s.r.o.');
  buyerKey = buyer.key;
  // purchase learns the buyer's legal currency (CZK) from settings' event
  const em = stack.services.purchase!.deps.orm.em.fork();
  await eventually(async () => (await sqlRows(em, 'select 1 from kit_organisations where org_id = ?', [buyer.orgId])).length > 0, 10_000);
}, 60_000);
afterAll(async () => stack?.close());

describe('importing ISDOC', () => {
  it("a seller's ISDOC invoice becomes the buyer's vendor bill with the same figures, account and variable symbol, in the ledger once", async () => {
    const invoice = await seller.post('/v1/sales/invoices', {
      customer: BUYER,
      currency: 'CZK',
      date_issued: '2026-11-20',
      date_due: '2026-12-04',
      discounts: [{ value_type: 'percentage', value: 10 }],
      items: [
        { title: 'Konzultace', qty: 3, rate: 1250.5, taxes: [VAT21] },
        { title: 'Příručka', qty: 2, rate: 399, taxes: [VAT12] },
      ],
    });
    const xml = await seller.xml('invoices', invoice.id, 'isdoc');
    const res = await importXml(xml);
    expect(res.status, await res.clone().text()).toBe(200);
    const { kind, bill } = await res.json();
    expect(kind).toBe('bill');
    expect(bill).toMatchObject({
      vendor_doc_no: invoice.no,
      currency: 'CZK',
      date_issued: '2026-11-20',
      date_due: '2026-12-04',
      subtotal_amount: invoice.subtotal_amount,
      total_amount: invoice.total_amount,
      payment_reference: invoice.no.replace(/\D/g, '').slice(-10),
      bank_account_number: 'CZ6508000000192000145399',
      vendor: { business_name: 'Dodavatel a.s.', reg_no: '12345678', vat_no: 'CZ12345678', address: { address1: 'Náměstí 5', city: 'Brno', country: 'CZ' } },
    });
    expect(bill.taxes.map((t: any) => [t.tax_rate, t.tax_base, t.tax_amount])).toEqual(invoice.taxes.map((t: any) => [t.tax_rate, t.tax_base, t.tax_amount]));
    const entry = await eventually(async () => {
      const page = await (await stack.api('/v1/accounting/transactions?take=10', { key: buyerKey })).json();
      return page.entities?.find((t: any) => t.type === 'purchase_bill' && t.source?.id === bill.id);
    }, 15_000);
    expect(entry).toMatchObject({ debit: invoice.total_amount, credit: invoice.total_amount });
    await expectProblem(await importXml(xml), 409, 'document_already_imported');
  });

  it('a credit note becomes a vendor credit naming the credited invoice, whether written positive or negative', async () => {
    const invoice = await seller.post('/v1/sales/invoices', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-02', date_due: '2026-11-16', items: [{ title: 'Práce', qty: 10, rate: 100, taxes: [VAT21] }] });
    const credit = await seller.post('/v1/sales/credit-notes', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-05', credited_doc_id: invoice.id, items: [{ title: 'Práce', qty: 2, rate: 100, taxes: [VAT21] }] });
    const xml = await seller.xml('credit-notes', credit.id, 'isdoc');
    const res = await importXml(xml);
    expect(res.status, await res.clone().text()).toBe(200);
    const { kind, vendor_credit } = await res.json();
    expect(kind).toBe('vendor_credit');
    expect(vendor_credit).toMatchObject({ vendor_doc_no: credit.no, credited_doc_no: invoice.no, subtotal_amount: 200, total_amount: 242 });

    // the same credit note as a producer that writes credit notes negative: every amount and quantity signed
    const negative = xml
      .replace(/<ID>[^<]*<\/ID>/, `<ID>${credit.no}-N</ID>`)
      .replace(/<((?:\w+)?(?:Amount|Price)\w*|InvoicedQuantity)([^>]*)>(\d[^<]*)</g, (_m, name, attrs, value) => (Number(value) === 0 ? `<${name}${attrs}>${value}<` : `<${name}${attrs}>-${value}<`));
    expect(negative).toContain('<TaxInclusiveAmount>-242.00</TaxInclusiveAmount>');
    expect(schemaErrors(negative, ISDOC_XSD())).toEqual([]);
    const again = await importXml(negative);
    expect(again.status, await again.clone().text()).toBe(200);
    expect((await again.json()).vendor_credit).toMatchObject({ credited_doc_no: invoice.no, subtotal_amount: 200, total_amount: 242 });
  });

  it('an invoice in euros is read in euros at the rate it states to the crown', async () => {
    const invoice = await seller.post('/v1/sales/invoices', { customer: BUYER, currency: 'EUR', fx_rate: 25.2, date_issued: '2026-11-20', date_due: '2026-12-04', items: [{ title: 'Licence', qty: 1, rate: 1000, taxes: [VAT21] }] });
    const res = await importXml(await seller.xml('invoices', invoice.id, 'isdoc'));
    expect(res.status, await res.clone().text()).toBe(200);
    const { bill } = await res.json();
    expect(bill).toMatchObject({ currency: 'EUR', total_amount: 1210, tax_fx_rate: 25.2 });
    expect(bill.taxes[0]).toMatchObject({ tax_amount: 210, tax_amount_leg: 5292 });
  });

  it('totals its lines do not give are 422; a document type that is no bill, no supplier, or an unknown currency is 400; nothing is stored', async () => {
    const invoice = await seller.post('/v1/sales/invoices', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-20', date_due: '2026-12-04', items: [{ title: 'X', qty: 1, rate: 100, taxes: [VAT21] }] });
    const xml = (await seller.xml('invoices', invoice.id, 'isdoc')).replace(/<ID>[^<]*<\/ID>/, '<ID>TAMPERED-1</ID>');
    const before = (await (await stack.api('/v1/purchase/bills', { key: buyerKey })).json()).total;
    const tampered = xml.replace(/(<LegalMonetaryTotal>[\s\S]*?<TaxInclusiveAmount>)121.00</, '$1131.00<');
    const problem = await expectProblem(await importXml(tampered), 422, 'imported_totals_mismatch');
    expect(problem.errors?.map((e) => e.path)).toEqual(['TaxInclusiveAmount']);
    await expectProblem(await importXml(xml.replace('<DocumentType>1</DocumentType>', '<DocumentType>4</DocumentType>')), 400, 'unsupported_einvoice');
    const nameless = await expectProblem(await importXml(xml.replace(/<PartyName>\s*<Name>Dodavatel a.s.<\/Name>\s*<\/PartyName>/, '<PartyName><Name/></PartyName>')), 400, 'invalid_einvoice');
    expect(nameless.errors?.[0].path).toBe('AccountingSupplierParty/Party/PartyName/Name');
    await expectProblem(await importXml(xml.replace('<LocalCurrencyCode>CZK</LocalCurrencyCode>', '<LocalCurrencyCode>crowns</LocalCurrencyCode>')), 400, 'invalid_einvoice');
    const amount = await expectProblem(await importXml(xml.replace(/<LineExtensionAmount>100.00</, '<LineExtensionAmount>1e3<')), 400, 'invalid_einvoice');
    expect(amount.errors?.[0].path).toBe('InvoiceLines/InvoiceLine[1]/LineExtensionAmount');
    expect((await (await stack.api('/v1/purchase/bills', { key: buyerKey })).json()).total).toBe(before);
    // and the untampered document still imports
    expect((await importXml(xml)).status).toBe(200);
  });
});
