import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Stack } from '../support/stack.js';
import { BUYER, VAT12, VAT21, generatedBody, generatedDocuments, startEInvoiceStack, type EInvoiceStack } from './einvoice-stack.js';
import { expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { UBL_CREDIT_NOTE_XSD, UBL_INVOICE_XSD, einvoiceDir, schemaErrors, xmlValues } from '../support/einvoice.js';

/*
 * Peppol BIS Billing 3.0 out (issue 16): invoices and credit notes as UBL 2.1 documents that the
 * OASIS schemas accept, with the stored figures, the Peppol identifiers, the VAT breakdown by
 * EN 16931 category and the credited invoice; 422 naming each Peppol rule a document misses.
 */

let stack: Stack;
let post: EInvoiceStack['post'];
let ubl: (kind: 'invoices' | 'credit-notes', id: number) => Promise<string>;
const dataDir = mkdtempSync(path.join(tmpdir(), 'll-einvoice-'));

beforeAll(async () => {
  const started = await startEInvoiceStack(dataDir);
  ({ stack, post } = started);
  ubl = (kind, id) => started.xml(kind, id, 'ubl');
}, 60_000);
afterAll(async () => stack?.close());

describe('Peppol BIS Billing 3.0 (UBL 2.1)', () => {
  it('the reference examples validate with the test tooling (the check can tell valid from invalid)', () => {
    const example = readFileSync(path.join(einvoiceDir(), 'examples/peppol-base-example.xml'), 'utf8');
    expect(schemaErrors(example, UBL_INVOICE_XSD())).toEqual([]);
    // elements out of the schema's order are refused
    const swapped = example.replace(/(<cbc:IssueDate>[^<]*<\/cbc:IssueDate>)\s*(<cbc:DueDate>[^<]*<\/cbc:DueDate>)/, '$2$1');
    expect(schemaErrors(swapped, UBL_INVOICE_XSD()).length).toBeGreaterThan(0);
  });

  it('an invoice with two VAT rates: schema-valid, Peppol identifiers, stored figures and its breakdown', async () => {
    const invoice = await post('/v1/sales/invoices', {
      customer: BUYER,
      currency: 'CZK',
      date_issued: '2026-11-20',
      date_due: '2026-12-04',
      buyer_reference: 'PO-4471',
      notes: 'Děkujeme <za> "objednávku"',
      items: [
        { title: 'Konzultace', qty: 3, rate: 1250.5, unit: { code: 'HUR', name: 'hodina' }, taxes: [VAT21] },
        { title: 'Příručka', qty: 2, rate: 399, taxes: [VAT12] },
      ],
    });
    const xml = await ubl('invoices', invoice.id);
    expect(schemaErrors(xml, UBL_INVOICE_XSD())).toEqual([]);
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/);
    expect(xmlValues(xml, 'CustomizationID')).toEqual(['urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0']);
    expect(xmlValues(xml, 'ProfileID')).toEqual(['urn:fdc:peppol.eu:2017:poacc:billing:01:1.0']);
    expect(xmlValues(xml, 'InvoiceTypeCode')).toEqual(['380']);
    expect(xmlValues(xml, 'ID')[0]).toBe(invoice.no);
    expect(xml).toContain('<cbc:EndpointID schemeID="9929">CZ12345678</cbc:EndpointID>');
    expect(xml).toContain('<cbc:EndpointID schemeID="9929">CZ87654321</cbc:EndpointID>');
    expect(xml).toContain('<cbc:Name>Odběratel &amp; Syn s.r.o.</cbc:Name>');
    expect(xmlValues(xml, 'Note')).toEqual(['Děkujeme &lt;za&gt; &quot;objednávku&quot;']);
    expect(xmlValues(xml, 'BuyerReference')).toEqual(['PO-4471']);
    // 3 × 1250.50 = 3751.50 at 21 % → 787.82; 2 × 399 = 798 at 12 % → 95.76
    expect(xmlValues(xml, 'TaxableAmount')).toEqual(['3751.50', '798.00']);
    expect(xmlValues(xml, 'TaxAmount')).toEqual(['883.58', '787.82', '95.76']);
    expect(xmlValues(xml, 'LineExtensionAmount')).toEqual(['4549.50', '3751.50', '798.00']);
    expect(xmlValues(xml, 'TaxInclusiveAmount')).toEqual([invoice.total_amount.toFixed(2)]);
    expect(xmlValues(xml, 'PayableAmount')).toEqual(['5433.08']);
    expect(xml).toContain('<cbc:InvoicedQuantity unitCode="HUR">3</cbc:InvoicedQuantity>');
    expect(xml).toContain('<cbc:InvoicedQuantity unitCode="C62">2</cbc:InvoicedQuantity>');
    // paid by credit transfer to the organisation's IBAN
    expect(xmlValues(xml, 'PaymentMeansCode')).toEqual(['30']);
    expect(xml).toContain('<cbc:ID>CZ6508000000192000145399</cbc:ID>');
  });

  it('a credit note refers to the invoice it credits and validates as a CreditNote', async () => {
    const invoice = await post('/v1/sales/invoices', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-02', date_due: '2026-11-16', order_reference: 'OBJ-9', items: [{ title: 'Práce', qty: 10, rate: 100, taxes: [VAT21] }] });
    // no references of its own: it takes the credited invoice's
    const credit = await post('/v1/sales/credit-notes', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-05', credited_doc_id: invoice.id, items: [{ title: 'Práce', qty: 2, rate: 100, taxes: [VAT21] }] });
    const xml = await ubl('credit-notes', credit.id);
    expect(schemaErrors(xml, UBL_CREDIT_NOTE_XSD())).toEqual([]);
    expect(xml).toContain('<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"');
    expect(xmlValues(xml, 'CreditNoteTypeCode')).toEqual(['381']);
    expect(xml).toMatch(/<cac:BillingReference>\s*<cac:InvoiceDocumentReference>\s*<cbc:ID>[^<]+<\/cbc:ID>\s*<cbc:IssueDate>2026-11-02<\/cbc:IssueDate>/);
    expect(xmlValues(xml, 'ID')).toContain(invoice.no);
    expect(xml).toContain('<cbc:CreditedQuantity unitCode="C62">2</cbc:CreditedQuantity>');
    expect(xmlValues(xml, 'PayableAmount')).toEqual(['242.00']);
    // the references of the credited invoice (PEPPOL-EN16931-R003)
    expect(xml).toMatch(/<cac:OrderReference>\s*<cbc:ID>OBJ-9<\/cbc:ID>/);
  });

  it('an intra-EU supply at 0 % is category K with its exemption code; a foreign currency adds the VAT total in CZK', async () => {
    const sk = { ...BUYER, business_name: 'Odberateľ s.r.o.', vat_no: 'SK2020123456', peppol_id: '9950:SK2020123456', address: { city: 'Bratislava', country: 'SK' } };
    const invoice = await post('/v1/sales/invoices', {
      customer: sk,
      currency: 'EUR',
      fx_rate: 25.2,
      date_issued: '2026-11-20',
      date_due: '2026-12-04',
      buyer_reference: 'SK-1',
      items: [{ title: 'Licence', qty: 1, rate: 1000, taxes: [{ tax_code: 'K', tax_rate: 0 }] }],
    });
    const xml = await ubl('invoices', invoice.id);
    expect(schemaErrors(xml, UBL_INVOICE_XSD())).toEqual([]);
    expect(xml).toMatch(/<cac:TaxCategory>\s*<cbc:ID>K<\/cbc:ID>\s*<cbc:Percent>0<\/cbc:Percent>\s*<cbc:TaxExemptionReasonCode>VATEX-EU-IC<\/cbc:TaxExemptionReasonCode>/);
    expect(xmlValues(xml, 'TaxCurrencyCode')).toEqual(['CZK']);
    expect(xml).toContain('<cbc:TaxAmount currencyID="CZK">0.00</cbc:TaxAmount>');
    // BR-IC-11 (the actual delivery date) and BR-IC-12 (the deliver-to country), from the tax point and the buyer's address
    expect(xml).toMatch(/<cac:Delivery>\s*<cbc:ActualDeliveryDate>2026-11-20<\/cbc:ActualDeliveryDate>\s*<cac:DeliveryLocation>\s*<cac:Address>\s*<cbc:CityName>Bratislava<\/cbc:CityName>\s*<cac:Country>\s*<cbc:IdentificationCode>SK<\/cbc:IdentificationCode>/);

    // shipped elsewhere on another tax point: the shipping address and that day
    const shipped = await post('/v1/sales/invoices', {
      customer: sk,
      currency: 'EUR',
      fx_rate: 25.2,
      date_issued: '2026-11-20',
      date_taxable: '2026-11-18',
      date_due: '2026-12-04',
      buyer_reference: 'SK-2',
      shipping_address: { address1: 'Skladová 4', city: 'Wien', postal_code: '1010', country: 'AT' },
      items: [{ title: 'Licence', qty: 1, rate: 1000, taxes: [{ tax_code: 'K', tax_rate: 0 }] }],
    });
    const shippedXml = await ubl('invoices', shipped.id);
    expect(schemaErrors(shippedXml, UBL_INVOICE_XSD())).toEqual([]);
    expect(xmlValues(shippedXml, 'ActualDeliveryDate')).toEqual(['2026-11-18']);
    expect(shippedXml).toMatch(/<cac:DeliveryLocation>\s*<cac:Address>\s*<cbc:StreetName>Skladová 4<\/cbc:StreetName>\s*<cbc:CityName>Wien<\/cbc:CityName>\s*<cbc:PostalZone>1010<\/cbc:PostalZone>\s*<cac:Country>\s*<cbc:IdentificationCode>AT<\/cbc:IdentificationCode>/);
  });

  it('a document discount is a document-level allowance per category, totals still the stored ones', async () => {
    const invoice = await post('/v1/sales/invoices', {
      customer: BUYER,
      currency: 'CZK',
      date_issued: '2026-11-20',
      date_due: '2026-12-04',
      buyer_reference: 'PO-5',
      discounts: [{ title: 'Věrnostní sleva', value_type: 'percentage', value: 10 }],
      items: [
        { title: 'A', qty: 1, rate: 1000, taxes: [VAT21] },
        { title: 'B', qty: 1, rate: 500, taxes: [VAT12] },
      ],
    });
    const xml = await ubl('invoices', invoice.id);
    expect(schemaErrors(xml, UBL_INVOICE_XSD())).toEqual([]);
    expect(xmlValues(xml, 'TaxExclusiveAmount')).toEqual([invoice.subtotal_amount.toFixed(2)]);
    expect(xmlValues(xml, 'PayableAmount')).toEqual([invoice.amount_due.toFixed(2)]);
    // Σ lines − allowances = tax-exclusive total (BR-CO-13), whichever way the discount was stored
    const lineSum = xmlValues(xml, 'LineExtensionAmount')[0];
    const allowances = xmlValues(xml, 'AllowanceTotalAmount')[0] ?? '0';
    const charges = xmlValues(xml, 'ChargeTotalAmount')[0] ?? '0';
    expect((Number(lineSum) - Number(allowances) + Number(charges)).toFixed(2)).toBe(invoice.subtotal_amount.toFixed(2));
  });

  it('generated documents (rates, quantities, discounts, shipping, currencies, credit notes) are schema-valid and add up as EN 16931 requires', async () => {
    await fc.assert(
      fc.asyncProperty(generatedDocuments, async (d) => {
        const doc = await post(d.credit ? '/v1/sales/credit-notes' : '/v1/sales/invoices', generatedBody(d));
        const xml = await ubl(d.credit ? 'credit-notes' : 'invoices', doc.id);
        expect(schemaErrors(xml, d.credit ? UBL_CREDIT_NOTE_XSD() : UBL_INVOICE_XSD())).toEqual([]);
        const cents = (v: string | undefined) => Math.round(Number(v ?? 0) * 100);
        const [lineTotal] = xmlValues(xml, 'LineExtensionAmount');
        const lines = xmlValues(xml, 'LineExtensionAmount').slice(1);
        // BR-CO-10: Σ line net amounts; BR-CO-13: tax exclusive = lines − allowances + charges; BR-CO-15/16
        expect(cents(lineTotal)).toBe(lines.reduce((a, v) => a + cents(v), 0));
        expect(cents(xmlValues(xml, 'TaxExclusiveAmount')[0])).toBe(cents(lineTotal) - cents(xmlValues(xml, 'AllowanceTotalAmount')[0]) + cents(xmlValues(xml, 'ChargeTotalAmount')[0]));
        const taxTotal = cents(xmlValues(xml, 'TaxAmount')[0]);
        expect(cents(xmlValues(xml, 'TaxInclusiveAmount')[0])).toBe(cents(xmlValues(xml, 'TaxExclusiveAmount')[0]) + taxTotal);
        expect(cents(xmlValues(xml, 'PayableAmount')[0])).toBe(cents(xmlValues(xml, 'TaxInclusiveAmount')[0]) - cents(xmlValues(xml, 'PrepaidAmount')[0]));
        // the stored figures, never recomputed
        expect(cents(xmlValues(xml, 'TaxInclusiveAmount')[0])).toBe(Math.round(doc.total_amount * 100));
        expect(taxTotal).toBe(Math.round(doc.tax_amount * 100));
      }),
      { numRuns: 40, seed: 1611 },
    );
  }, 120_000);

  it('an invoice e-mail can carry its UBL document; an invoice Peppol would refuse is 422 and nothing is sent', async () => {
    const invoice = await post('/v1/sales/invoices', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-20', date_due: '2026-12-04', buyer_reference: 'MAIL-1', items: [{ title: 'Služba', qty: 1, rate: 500, taxes: [VAT21] }] });
    const sent = await stack.api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { include_attachment: false, include_einvoice: 'ubl' } });
    expect(sent.status, await sent.clone().text()).toBe(200);
    expect(await sent.json()).toMatchObject({ success: true, to: BUYER.email });
    const [record] = await (await stack.api('/v1/CRM/emails?take=1')).json();
    expect(record.attachments).toEqual([{ id: 1, file_name: `Invoice-${invoice.no}.xml`, binary_content: null }]);
    const mailDir = path.join(dataDir, 'mail');
    const eml = readFileSync(path.join(mailDir, readdirSync(mailDir).sort().at(-1)!), 'utf8');
    const part = /Content-Type: application\/xml[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(eml);
    expect(part, eml.slice(0, 2000)).not.toBeNull();
    const xml = Buffer.from(part![1].replace(/\s+/g, ''), 'base64').toString('utf8');
    expect(schemaErrors(xml, UBL_INVOICE_XSD())).toEqual([]);
    expect(xmlValues(xml, 'ID')[0]).toBe(invoice.no);

    const before = (await (await stack.api('/v1/CRM/emails?take=100')).json()).length;
    const incomplete = await post('/v1/sales/invoices', { customer: { business_name: 'Bez Peppolu', email: 'x@y.example', address: { country: 'CZ' } }, currency: 'CZK', date_issued: '2026-11-20', items: [{ title: 'X', qty: 1, rate: 1, taxes: [VAT21] }] });
    await expectProblem(await stack.api(`/v1/sales/invoices/${incomplete.id}/email`, { method: 'POST', json: { include_einvoice: 'ubl' } }), 422, 'einvoice_incomplete');
    expect((await (await stack.api('/v1/CRM/emails?take=100')).json()).length).toBe(before);
    await expectProblem(await stack.api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { include_einvoice: 'pdf' } }), 400);
  });

  it('answers 422 naming each Peppol rule the invoice misses, and 404 for another organisation', async () => {
    const invoice = await post('/v1/sales/invoices', {
      customer: { business_name: 'Bez Peppolu s.r.o.', address: { country: 'CZ' } },
      currency: 'CZK',
      date_issued: '2026-11-20',
      items: [{ title: 'X', qty: 1, rate: 100, taxes: [VAT21] }],
    });
    const problem = await expectProblem(await stack.api(`/v1/sales/invoices/${invoice.id}/ubl`), 422, 'einvoice_incomplete');
    expect(problem.errors?.map((e) => e.path)).toEqual(['PEPPOL-EN16931-R010', 'PEPPOL-EN16931-R003', 'BR-CO-25']);
    expect(problem.detail).toContain('PEPPOL-EN16931-R010');

    const other = await secondOrganisation(stack, 'Cizí s.r.o.');
    await expectProblem(await stack.api(`/v1/sales/invoices/${invoice.id}/ubl`, { key: other.key }), 404, 'invoice_not_found');
    await expectProblem(await stack.api('/v1/sales/invoices/99999999/ubl'), 404, 'invoice_not_found');
    await expectProblem(await stack.api('/v1/sales/invoices/abc/ubl'), 400);
  });
});
