import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { ISDOC_XSD, schemaErrors, xmlValues } from '../support/einvoice.js';
import { BUYER, VAT12, VAT21, generatedBody, generatedDocuments, startEInvoiceStack, type EInvoiceStack } from './einvoice-stack.js';

/*
 * ISDOC 6.0.2 out (issue 16): invoices (DocumentType 1) and credit notes (DocumentType 2 with the
 * credited invoice) that the ISDOC schema accepts, with the stored figures in the legal currency
 * and, for a document in another currency, in its own currency beside them; lines that add up to
 * the recap; the organisation's account as Czech banks name it, with the variable symbol.
 */

let stack: Stack;
let post: EInvoiceStack['post'];
let isdoc: (kind: 'invoices' | 'credit-notes', id: number) => Promise<string>;
const dataDir = mkdtempSync(path.join(tmpdir(), 'll-isdoc-'));

beforeAll(async () => {
  const started = await startEInvoiceStack(dataDir);
  ({ stack, post } = started);
  isdoc = (kind, id) => started.xml(kind, id, 'isdoc');
}, 60_000);
afterAll(async () => stack?.close());

const cents = (v: string | undefined) => Math.round(Number(v ?? 0) * 100);
const sumCents = (values: string[]) => values.reduce((a, v) => a + cents(v), 0);
/** The text of `name` inside every `parent` element, in order. */
const within = (xml: string, parent: string, name: string) => [...xml.matchAll(new RegExp(`<${parent}(?:\\s[^>]*)?>[\\s\\S]*?</${parent}>`, 'g'))].flatMap((m) => xmlValues(m[0], name));

describe('ISDOC 6.0.2', () => {
  it('an invoice with two VAT rates: schema-valid, parties as Czech documents name them, stored figures, account and variable symbol', async () => {
    const invoice = await post('/v1/sales/invoices', {
      customer: BUYER,
      currency: 'CZK',
      date_issued: '2026-11-20',
      date_taxable: '2026-11-19',
      date_due: '2026-12-04',
      order_reference: 'OBJ-77',
      notes: 'Děkujeme <za> "objednávku"',
      items: [
        { title: 'Konzultace', qty: 3, rate: 1250.5, unit: { code: 'HUR', name: 'hodina' }, taxes: [VAT21] },
        { title: 'Příručka', qty: 2, rate: 399, sku: 'BOOK-1', taxes: [VAT12] },
      ],
    });
    const xml = await isdoc('invoices', invoice.id);
    expect(schemaErrors(xml, ISDOC_XSD())).toEqual([]);
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Invoice xmlns="http:\/\/isdoc.cz\/namespace\/2013" version="6.0.2">/);
    expect(xmlValues(xml, 'DocumentType')).toEqual(['1']);
    expect(xmlValues(xml, 'UUID')).toEqual([invoice.uid.toUpperCase()]);
    expect(xmlValues(xml, 'IssueDate')).toEqual(['2026-11-20']);
    expect(xmlValues(xml, 'TaxPointDate')).toEqual(['2026-11-19']);
    expect(xmlValues(xml, 'VATApplicable')).toEqual(['true']);
    expect(xmlValues(xml, 'LocalCurrencyCode')).toEqual(['CZK']);
    expect(xmlValues(xml, 'ForeignCurrencyCode')).toEqual([]);
    expect([xmlValues(xml, 'CurrRate'), xmlValues(xml, 'RefCurrRate')]).toEqual([['1'], ['1']]);
    expect(xmlValues(xml, 'Note')).toEqual(['Děkujeme &lt;za&gt; &quot;objednávku&quot;']);
    expect(xmlValues(xml, 'SalesOrderID')).toEqual(['OBJ-77']);
    // seller and buyer: IČO, DIČ, the street apart from the house number, the country by name
    expect(within(xml, 'AccountingSupplierParty', 'ID')).toEqual(['12345678']);
    expect(within(xml, 'AccountingSupplierParty', 'CompanyID')).toEqual(['CZ12345678']);
    expect(within(xml, 'AccountingSupplierParty', 'StreetName')).toEqual(['Náměstí']);
    expect(within(xml, 'AccountingSupplierParty', 'BuildingNumber')).toEqual(['5']);
    expect(within(xml, 'AccountingSupplierParty', 'Name')).toEqual(['Dodavatel a.s.', 'Česko']);
    expect(within(xml, 'AccountingCustomerParty', 'Name')).toEqual(['Odběratel &amp; Syn s.r.o.', 'Česko']);
    expect(within(xml, 'AccountingCustomerParty', 'ID')).toEqual(['87654321']);
    // 3 × 1250.50 = 3751.50 at 21 % → 787.82; 2 × 399 = 798 at 12 % → 95.76
    expect(within(xml, 'InvoiceLine', 'LineExtensionAmount')).toEqual(['3751.50', '798.00']);
    expect(within(xml, 'InvoiceLine', 'LineExtensionTaxAmount')).toEqual(['787.82', '95.76']);
    expect(within(xml, 'InvoiceLine', 'LineExtensionAmountTaxInclusive')).toEqual(['4539.32', '893.76']);
    expect(within(xml, 'InvoiceLine', 'UnitPrice')).toEqual(['1250.5', '399']);
    expect(within(xml, 'InvoiceLine', 'Percent')).toEqual(['21', '12']);
    expect(within(xml, 'InvoiceLine', 'VATCalculationMethod')).toEqual(['0', '0']);
    expect(xml).toContain('<InvoicedQuantity unitCode="HUR">3</InvoicedQuantity>');
    expect(within(xml, 'SellersItemIdentification', 'ID')).toEqual(['BOOK-1']);
    expect(within(xml, 'TaxSubTotal', 'TaxableAmount')).toEqual(['3751.50', '798.00']);
    expect(within(xml, 'TaxSubTotal', 'TaxAmount')).toEqual(['787.82', '95.76']);
    expect(within(xml, 'TaxSubTotal', 'DifferenceTaxInclusiveAmount')).toEqual(['4539.32', '893.76']);
    expect(within(xml, 'LegalMonetaryTotal', 'TaxExclusiveAmount')).toEqual(['4549.50']);
    expect(within(xml, 'LegalMonetaryTotal', 'TaxInclusiveAmount')).toEqual(['5433.08']);
    expect(within(xml, 'LegalMonetaryTotal', 'PayableAmount')).toEqual(['5433.08']);
    // bank transfer (42) to the organisation's account, split from its IBAN, paid by the number's digits
    expect(within(xml, 'Payment', 'PaymentMeansCode')).toEqual(['42']);
    expect(within(xml, 'Details', 'ID')).toEqual(['19-2000145399']);
    expect(within(xml, 'Details', 'BankCode')).toEqual(['0800']);
    expect(within(xml, 'Details', 'IBAN')).toEqual(['CZ6508000000192000145399']);
    expect(within(xml, 'Details', 'BIC')).toEqual(['GIBACZPX']);
    expect(within(xml, 'Details', 'PaymentDueDate')).toEqual(['2026-12-04']);
    expect(within(xml, 'Details', 'VariableSymbol')).toEqual([invoice.no.replace(/\D/g, '').slice(-10)]);
  });

  it('the schema check can tell: a document missing a required element fails it', async () => {
    const invoice = await post('/v1/sales/invoices', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-20', date_due: '2026-12-04', items: [{ title: 'X', qty: 1, rate: 10, taxes: [VAT21] }] });
    const xml = await isdoc('invoices', invoice.id);
    expect(schemaErrors(xml, ISDOC_XSD())).toEqual([]);
    expect(schemaErrors(xml.replace(/<UUID>[^<]*<\/UUID>/, ''), ISDOC_XSD()).length).toBeGreaterThan(0);
    expect(schemaErrors(xml.replace(/<DocumentType>1</, '<DocumentType>9<'), ISDOC_XSD()).length).toBeGreaterThan(0);
  });

  it('a credit note is DocumentType 2 referring to the credited invoice (number, date, UUID), positive figures, no payment asked', async () => {
    const invoice = await post('/v1/sales/invoices', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-02', date_due: '2026-11-16', items: [{ title: 'Práce', qty: 10, rate: 100, taxes: [VAT21] }] });
    const credit = await post('/v1/sales/credit-notes', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-05', credited_doc_id: invoice.id, items: [{ title: 'Práce', qty: 2, rate: 100, taxes: [VAT21] }] });
    const xml = await isdoc('credit-notes', credit.id);
    expect(schemaErrors(xml, ISDOC_XSD())).toEqual([]);
    expect(xmlValues(xml, 'DocumentType')).toEqual(['2']);
    expect(within(xml, 'OriginalDocumentReference', 'ID')).toEqual([invoice.no]);
    expect(within(xml, 'OriginalDocumentReference', 'IssueDate')).toEqual(['2026-11-02']);
    expect(within(xml, 'OriginalDocumentReference', 'UUID')).toEqual([invoice.uid.toUpperCase()]);
    expect(within(xml, 'LegalMonetaryTotal', 'TaxInclusiveAmount')).toEqual(['242.00']);
    expect(xml).not.toContain('<PaymentMeans>');
    expect(xml).not.toMatch(/>-\d/);

    // a credit note that credits no invoice cannot be an ISDOC credit note
    const loose = await post('/v1/sales/credit-notes', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-05', items: [{ title: 'Práce', qty: 1, rate: 100, taxes: [VAT21] }] });
    const problem = await expectProblem(await stack.api(`/v1/sales/credit-notes/${loose.id}/isdoc`), 422, 'einvoice_incomplete');
    expect(problem.errors?.map((e) => e.path)).toEqual(['ISDOC-ORIGINAL']);
  });

  it('a document in euros carries every amount in CZK and, in the …Curr twins, in euros', async () => {
    const invoice = await post('/v1/sales/invoices', {
      customer: { ...BUYER, address: { address1: 'Hlavná 12/3a', city: 'Bratislava', postal_code: '811 01', country: 'SK' } },
      currency: 'EUR',
      fx_rate: 25.2,
      date_issued: '2026-11-20',
      date_due: '2026-12-04',
      items: [
        { title: 'Licence', qty: 1, rate: 1000, taxes: [VAT21] },
        { title: 'Podpora', qty: 3, rate: 33.33, taxes: [VAT21] },
      ],
    });
    const xml = await isdoc('invoices', invoice.id);
    expect(schemaErrors(xml, ISDOC_XSD())).toEqual([]);
    expect(xmlValues(xml, 'ForeignCurrencyCode')).toEqual(['EUR']);
    expect(xmlValues(xml, 'CurrRate')).toEqual(['25.2']);
    expect(within(xml, 'AccountingCustomerParty', 'StreetName')).toEqual(['Hlavná']);
    expect(within(xml, 'AccountingCustomerParty', 'BuildingNumber')).toEqual(['12/3a']);
    expect(within(xml, 'AccountingCustomerParty', 'Name')).toEqual(['Odběratel &amp; Syn s.r.o.', 'Slovensko']);
    // every amount has its twin (the ISDOC rule for foreign currency)
    for (const name of ['LineExtensionAmount', 'LineExtensionAmountTaxInclusive', 'TaxableAmount', 'TaxInclusiveAmount', 'TaxExclusiveAmount', 'PayableAmount', 'PaidDepositsAmount', 'DifferenceTaxInclusiveAmount']) {
      expect(xmlValues(xml, `${name}Curr`).length, name).toBe(xmlValues(xml, name).length);
    }
    expect(within(xml, 'LegalMonetaryTotal', 'TaxInclusiveAmountCurr')).toEqual([invoice.total_amount.toFixed(2)]);
    expect(within(xml, 'LegalMonetaryTotal', 'TaxInclusiveAmount')).toEqual([invoice.total_amount_leg.toFixed(2)]);
    expect(within(xml, 'LegalMonetaryTotal', 'TaxExclusiveAmount')).toEqual([invoice.subtotal_amount_leg.toFixed(2)]);
    expect(within(xml, 'TaxTotal', 'TaxAmountCurr').at(-1)).toBe(invoice.tax_amount.toFixed(2));
    expect(within(xml, 'InvoiceLine', 'LineExtensionAmountCurr')).toEqual(['1000.00', '99.99']);
    // the lines add up to the recap in both currencies
    expect(sumCents(within(xml, 'InvoiceLine', 'LineExtensionAmount'))).toBe(cents(within(xml, 'LegalMonetaryTotal', 'TaxExclusiveAmount')[0]));
    expect(sumCents(within(xml, 'InvoiceLine', 'LineExtensionAmountCurr'))).toBe(cents(within(xml, 'LegalMonetaryTotal', 'TaxExclusiveAmountCurr')[0]));
  });

  it('generated documents (rates, quantities, discounts, shipping, currencies, credit notes) are schema-valid and their lines add up to the stored recap', async () => {
    await fc.assert(
      fc.asyncProperty(generatedDocuments, async (d) => {
        const body = generatedBody(d);
        const invoice = await post('/v1/sales/invoices', body);
        // a credit note credits the whole invoice it follows
        const doc = d.credit ? await post('/v1/sales/credit-notes', { ...body, credited_doc_id: invoice.id }) : invoice;
        const xml = await isdoc(d.credit ? 'credit-notes' : 'invoices', doc.id);
        expect(schemaErrors(xml, ISDOC_XSD())).toEqual([]);
        expect(xmlValues(xml, 'VATCalculationMethod').every((m) => m === (d.taxesIncluded ? '1' : '0'))).toBe(true);
        const total = (name: string) => cents(within(xml, 'LegalMonetaryTotal', name)[0]);
        // the stored figures, never recomputed
        expect(total(d.euro ? 'TaxInclusiveAmountCurr' : 'TaxInclusiveAmount')).toBe(Math.round(doc.total_amount * 100));
        expect(total('TaxInclusiveAmount')).toBe(Math.round((doc.total_amount_leg ?? doc.total_amount) * 100));
        // lines add up to the totals, in the legal currency and in the document's
        for (const curr of d.euro ? ['', 'Curr'] : ['']) {
          expect(sumCents(within(xml, 'InvoiceLine', `LineExtensionAmount${curr}`))).toBe(total(`TaxExclusiveAmount${curr}`));
          expect(sumCents(within(xml, 'TaxSubTotal', `TaxableAmount${curr}`))).toBe(total(`TaxExclusiveAmount${curr}`));
          expect(sumCents(within(xml, 'InvoiceLine', `LineExtensionAmountTaxInclusive${curr}`))).toBe(total(`TaxInclusiveAmount${curr}`));
          expect(total(`TaxInclusiveAmount${curr}`) - total(`PaidDepositsAmount${curr}`)).toBe(total(`PayableAmount${curr}`));
        }
        expect(sumCents(within(xml, 'InvoiceLine', 'LineExtensionTaxAmount'))).toBe(cents(xmlValues(xml, 'TaxAmount').at(-1)));
      }),
      { numRuns: 40, seed: 1612 },
    );
  }, 120_000);

  it('an invoice e-mail can carry its ISDOC document as INVOICE-NO.isdoc', async () => {
    const invoice = await post('/v1/sales/invoices', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-20', date_due: '2026-12-04', items: [{ title: 'Služba', qty: 1, rate: 500, taxes: [VAT21] }] });
    const sent = await stack.api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { include_attachment: false, include_einvoice: 'isdoc' } });
    expect(sent.status, await sent.clone().text()).toBe(200);
    expect(await sent.json()).toMatchObject({ success: true, to: BUYER.email });
    const [record] = await (await stack.api('/v1/CRM/emails?take=1')).json();
    expect(record.attachments).toEqual([{ id: 1, file_name: `Invoice-${invoice.no}.isdoc`, binary_content: null }]);
    const mailDir = path.join(dataDir, 'mail');
    const eml = readFileSync(path.join(mailDir, readdirSync(mailDir).sort().at(-1)!), 'utf8');
    const part = /Content-Type: application\/xml[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(eml);
    expect(part, eml.slice(0, 2000)).not.toBeNull();
    const xml = Buffer.from(part![1].replace(/\s+/g, ''), 'base64').toString('utf8');
    expect(schemaErrors(xml, ISDOC_XSD())).toEqual([]);
    expect(xmlValues(xml, 'ID')[0]).toBe(invoice.no);
  });

  it('another organisation gets 404, an unknown id 404, a malformed id 400', async () => {
    const invoice = await post('/v1/sales/invoices', { customer: BUYER, currency: 'CZK', date_issued: '2026-11-20', items: [{ title: 'X', qty: 1, rate: 100, taxes: [VAT21] }] });
    const other = await secondOrganisation(stack, 'Cizí s.r.o.');
    await expectProblem(await stack.api(`/v1/sales/invoices/${invoice.id}/isdoc`, { key: other.key }), 404, 'invoice_not_found');
    await expectProblem(await stack.api('/v1/sales/credit-notes/99999999/isdoc'), 404, 'credit_note_not_found');
    await expectProblem(await stack.api('/v1/sales/invoices/abc/isdoc'), 400);
  });
});
