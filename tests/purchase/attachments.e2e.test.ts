import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { expectOk } from '../support/assertions.js';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { einvoiceDir } from '../support/einvoice.js';
import { secondOrganisation } from '../finance/support.js';
import { invoiceBody } from '../sales/helpers.js';
import { billBody, expectProblem } from './fixtures.js';

/*
 * Files kept with bills and invoices (decision 210): uploaded as multipart/form-data, their type
 * read from their bytes, returned as stored with their SHA-256, removed only while the period is
 * open; a received e-invoice keeps its XML and the PDF it embeds. The files uploaded are real ones
 * nobody here wrote (tests/fixtures/attachments/README.md names where each comes from).
 */

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/attachments', name));
const PDF = fixture('shared-mime-info-spec.pdf');
const PNG = fixture('git-logo.png');
const JPEG = fixture('thin-white-stripe.jpg');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let stack: Stack;
const MAX = 200_000;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase'], env: { ATTACHMENT_MAX_BYTES: String(MAX), MAIL_ATTACHMENTS_MAX_BYTES: String(2 * MAX) } });
}, 60_000);
afterAll(async () => stack?.close());

const ok = expectOk;
function form(bytes: Buffer, name: string, type = 'application/octet-stream', field = 'file'): FormData {
  const f = new FormData();
  f.append(field, new Blob([new Uint8Array(bytes)], { type }), name);
  return f;
}
const upload = (base: string, id: number, body: FormData | string, opts: { key?: string; headers?: Record<string, string> } = {}) =>
  stack.api(`/v1/${base}/${id}/attachments`, { method: 'POST', body, key: opts.key, headers: opts.headers });

async function newBill(key?: string) {
  return ok(await stack.api('/v1/purchase/bills', { method: 'POST', json: billBody(), key }));
}
async function newInvoice(key?: string) {
  return ok(await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody(), key }));
}

describe('attachments', () => {
  it('keeps a PDF, a PNG and a JPEG with a bill and an invoice, answering each as stored with its checksum', async () => {
    for (const [base, doc] of [['purchase/bills', await newBill()], ['sales/invoices', await newInvoice()]] as const) {
      const pdf = await ok(await upload(base, doc.id, form(PDF, 'supplier invoice 2026-11.pdf', 'application/pdf')));
      expect(pdf).toEqual({
        id: expect.any(Number),
        document_id: doc.id,
        file_name: 'supplier invoice 2026-11.pdf',
        content_type: 'application/pdf',
        size: PDF.length,
        sha256: sha256(PDF),
        source: 'upload',
        created_at: expect.any(String),
      });
      // the stated type is a claim: octet-stream says nothing, the bytes decide; a path in the name is dropped
      const png = await ok(await upload(base, doc.id, form(PNG, 'C:\\scans\\logo.png')));
      expect(png).toMatchObject({ file_name: 'logo.png', content_type: 'image/png', sha256: sha256(PNG) });
      const jpeg = await ok(await upload(base, doc.id, form(JPEG, 'photo.jpg', 'image/jpg')));
      expect(jpeg.content_type).toBe('image/jpeg');

      const list = await ok(await stack.api(`/v1/${base}/${doc.id}/attachments`));
      expect(list.total).toBe(3);
      expect(list.entities.map((a: any) => a.content_type)).toEqual(['application/pdf', 'image/png', 'image/jpeg']);
      const got = await stack.api(`/v1/${base}/${doc.id}/attachments/${pdf.id}`);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('application/pdf');
      expect(got.headers.get('content-disposition')).toContain("filename*=UTF-8''supplier%20invoice%202026-11.pdf");
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      const bytes = Buffer.from(await got.arrayBuffer());
      expect(sha256(bytes)).toBe(sha256(PDF));

      const removed = await ok(await stack.api(`/v1/${base}/${doc.id}/attachments/${png.id}`, { method: 'DELETE' }));
      expect(removed.id).toBe(png.id);
      await expectProblem(await stack.api(`/v1/${base}/${doc.id}/attachments/${png.id}`), 404, 'attachment_not_found');
      expect((await ok(await stack.api(`/v1/${base}/${doc.id}/attachments`))).total).toBe(2);
    }
  });

  it('refuses what is not a kept kind, mislabelled, too large or malformed, and keeps nothing', async () => {
    const bill = await newBill();
    const count = async () => (await ok(await stack.api(`/v1/purchase/bills/${bill.id}/attachments`))).total;
    // an executable named like a PDF, HTML, an empty file: the bytes are none of the kinds kept
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(64)]);
    await expectProblem(await upload('purchase/bills', bill.id, form(elf, 'invoice.pdf', 'application/pdf')), 415, 'unsupported_attachment_type');
    await expectProblem(await upload('purchase/bills', bill.id, form(Buffer.from('<!doctype html><script>alert(1)</script>'), 'x.xml', 'text/xml')), 415, 'unsupported_attachment_type');
    await expectProblem(await upload('purchase/bills', bill.id, form(Buffer.alloc(0), 'empty.pdf')), 400, 'validation_error');
    // a real PNG said to be a PDF
    await expectProblem(await upload('purchase/bills', bill.id, form(PNG, 'scan.pdf', 'application/pdf')), 422, 'attachment_type_mismatch');
    // a part named file without a filename comes as text: said so, not "unexpected: file" (issue 71)
    const boundary = 'x-boundary-71';
    const noName = await upload('purchase/bills', bill.id, `--${boundary}\r\nContent-Disposition: form-data; name="file"\r\n\r\n%PDF-1.4 x\r\n--${boundary}--\r\n`, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    const problem = await expectProblem(noName, 400, 'validation_error');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'file', code: 'file_name_missing' })]);
    // over the configured cap (the file itself, then a body the gateway refuses before reading it)
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX)]);
    await expectProblem(await upload('purchase/bills', bill.id, form(big, 'big.pdf', 'application/pdf')), 413, 'payload_too_large');
    await expectProblem(await upload('purchase/bills', bill.id, form(Buffer.concat([big, Buffer.alloc(100_000)]), 'bigger.pdf')), 413, 'payload_too_large');
    // not multipart, a broken form, two files, a stray field
    await expectProblem(await stack.api(`/v1/purchase/bills/${bill.id}/attachments`, { method: 'POST', json: { file: 'JVBERi0=' } }), 415, 'unsupported_media_type');
    await expectProblem(await upload('purchase/bills', bill.id, '--xyz\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc', { headers: { 'content-type': 'multipart/form-data; boundary=nope' } }), 400, 'invalid_body');
    await expectProblem(await upload('purchase/bills', bill.id, 'abc', { headers: { 'content-type': 'multipart/form-data' } }), 400, 'invalid_body');
    const two = form(PDF, 'a.pdf');
    two.append('file', new Blob([new Uint8Array(PNG)]), 'b.png');
    await expectProblem(await upload('purchase/bills', bill.id, two), 400, 'validation_error');
    const stray = form(PDF, 'a.pdf');
    stray.append('note', 'x\u0000y');
    await expectProblem(await upload('purchase/bills', bill.id, stray), 400, 'invalid_body');
    const other = form(PDF, 'a.pdf', 'application/pdf', 'document');
    await expectProblem(await upload('purchase/bills', bill.id, other), 400, 'validation_error');
    expect(await count()).toBe(0);
    // ids that are not documents of this kind
    await expectProblem(await upload('purchase/bills', 99_999_999, form(PDF, 'a.pdf')), 404, 'bill_not_found');
    await expectProblem(await stack.api(`/v1/purchase/bills/${bill.id}/attachments/0`), 400, 'validation_error');
    await expectProblem(await stack.api(`/v1/sales/invoices/${2 ** 53}/attachments`), 400, 'validation_error');
  });

  it("another organisation's ids are not found and a read-only key uploads nothing", async () => {
    const bill = await newBill();
    const kept = await ok(await upload('purchase/bills', bill.id, form(PDF, 'a.pdf')));
    const other = await secondOrganisation(stack, 'Attachments elsewhere');
    await expectProblem(await upload('purchase/bills', bill.id, form(PDF, 'a.pdf'), { key: other.key }), 404, 'bill_not_found');
    await expectProblem(await stack.api(`/v1/purchase/bills/${bill.id}/attachments`, { key: other.key }), 404, 'bill_not_found');
    await expectProblem(await stack.api(`/v1/purchase/bills/${bill.id}/attachments/${kept.id}`, { key: other.key }), 404, 'bill_not_found');
    await expectProblem(await stack.api(`/v1/purchase/bills/${bill.id}/attachments/${kept.id}`, { method: 'DELETE', key: other.key }), 404, 'bill_not_found');
    // its own bill cannot reach our file
    const theirs = await newBill(other.key);
    await expectProblem(await stack.api(`/v1/purchase/bills/${theirs.id}/attachments/${kept.id}`, { key: other.key }), 404, 'attachment_not_found');

    const reader = await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['purchase:read'] } }));
    await expectProblem(await upload('purchase/bills', bill.id, form(PDF, 'a.pdf'), { key: reader.key }), 403);
    await expectProblem(await stack.api(`/v1/purchase/bills/${bill.id}/attachments/${kept.id}`, { method: 'DELETE', key: reader.key }), 403);
    expect((await stack.api(`/v1/purchase/bills/${bill.id}/attachments/${kept.id}`, { key: reader.key })).status).toBe(200);
    // an invoice is not a bill
    await expectProblem(await upload('sales/invoices', bill.id + 10_000_000, form(PDF, 'a.pdf')), 404, 'invoice_not_found');
  });

  it('a file of a document in a closed period stays', async () => {
    const bill = await newBill();
    const kept = await ok(await upload('purchase/bills', bill.id, form(PDF, 'a.pdf')));
    await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: bill.date_issued } }));
    const em = stack.services.purchase!.deps.orm.em.fork();
    await eventually(async () => {
      const [row] = await sqlRows<{ lock_date: string | null }>(em, "select profile->>'lock_date' as lock_date from kit_organisations where profile->>'lock_date' is not null");
      return row?.lock_date === bill.date_issued;
    }, 10_000);
    await expectProblem(await stack.api(`/v1/purchase/bills/${bill.id}/attachments/${kept.id}`, { method: 'DELETE' }), 409, 'period_locked');
    // a file may still be added to it (nothing posts)
    await ok(await upload('purchase/bills', bill.id, form(PNG, 'b.png')));
    await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: null } }));
  });

  it('an imported Peppol invoice keeps its XML and the PDF it embeds; the XML is never removed', async () => {
    const created = await ok(await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Buyer AS', country: 'SE', legal_currency: 'EUR' } }));
    const key = created.admin_key.key;
    const em = stack.services.purchase!.deps.orm.em.fork();
    await eventually(async () => (await sqlRows<{ c: string }>(em, "select legal_currency as c from kit_organisations where org_id = ?", [created.organisation.id]))[0]?.c === 'EUR', 10_000);
    // the official example with the PDF image of the invoice embedded as senders put it (BT-125, base64 wrapped at 76)
    const base64 = PDF.toString('base64').replace(/.{76}/g, '$&\n');
    const xml = readFileSync(path.join(einvoiceDir(), 'examples', 'peppol-base-example.xml'), 'utf8').replace(
      '<cac:AccountingSupplierParty>',
      `<cac:AdditionalDocumentReference><cbc:ID>Snippet1.pdf</cbc:ID><cbc:DocumentDescription>Invoice image</cbc:DocumentDescription><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="Snippet1.pdf">\n${base64}\n</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>\n    <cac:AccountingSupplierParty>`,
    );
    const imported = await ok(await stack.api('/v1/purchase/bills/import', { method: 'POST', key, body: xml, headers: { 'content-type': 'application/xml' } }));
    const list = await ok(await stack.api(`/v1/purchase/bills/${imported.bill.id}/attachments`, { key }));
    expect(list.entities.map((a: any) => [a.source, a.content_type, a.file_name])).toEqual([
      ['einvoice', 'application/xml', 'Snippet1.xml'],
      ['einvoice_embedded', 'application/pdf', 'Snippet1.pdf'],
    ]);
    expect(list.entities[0].sha256).toBe(sha256(Buffer.from(xml, 'utf8')));
    expect(list.entities[1].sha256).toBe(sha256(PDF));
    const original = await stack.api(`/v1/purchase/bills/${imported.bill.id}/attachments/${list.entities[0].id}`, { key });
    expect(await original.text()).toBe(xml);
    await expectProblem(await stack.api(`/v1/purchase/bills/${imported.bill.id}/attachments/${list.entities[0].id}`, { method: 'DELETE', key }), 409, 'attachment_is_original');
    await ok(await stack.api(`/v1/purchase/bills/${imported.bill.id}/attachments/${list.entities[1].id}`, { method: 'DELETE', key }));
  });

  it('an imported invoice keeps files by the rules an upload keeps them: at most 50, names without control characters (issue 71)', async () => {
    const created = await ok(await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Buyer Two AS', country: 'SE', legal_currency: 'EUR' } }));
    const key = created.admin_key.key;
    const em = stack.services.purchase!.deps.orm.em.fork();
    await eventually(async () => (await sqlRows<{ c: string }>(em, "select legal_currency as c from kit_organisations where org_id = ?", [created.organisation.id]))[0]?.c === 'EUR', 10_000);
    // a small PDF each: sixty of them stay well within the body limit
    const base64 = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n').toString('base64');
    const embedded = (names: string[]) =>
      readFileSync(path.join(einvoiceDir(), 'examples', 'peppol-base-example.xml'), 'utf8').replace(
        '<cac:AccountingSupplierParty>',
        `${names.map((n, i) => `<cac:AdditionalDocumentReference><cbc:ID>Doc${i}</cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="${n}">\n${base64}\n</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`).join('\n')}\n    <cac:AccountingSupplierParty>`,
      );
    const before = (await ok(await stack.api('/v1/purchase/bills?take=0', { key }))).total;
    const many = await stack.api('/v1/purchase/bills/import', { method: 'POST', key, body: embedded(Array.from({ length: 60 }, (_, i) => `page-${i}.pdf`)), headers: { 'content-type': 'application/xml' } });
    await expectProblem(many, 422, 'too_many_attachments');
    expect((await ok(await stack.api('/v1/purchase/bills?take=0', { key }))).total).toBe(before);
    // a name with a line break and a path is kept as an upload keeps it
    const xml = embedded(['evil\n0\t.pdf', '../../etc/passwd.pdf']).replace('<cbc:ID>Snippet1</cbc:ID>', '<cbc:ID>Snippet2</cbc:ID>');
    const imported = await ok(await stack.api('/v1/purchase/bills/import', { method: 'POST', key, body: xml, headers: { 'content-type': 'application/xml' } }));
    const list = await ok(await stack.api(`/v1/purchase/bills/${imported.bill.id}/attachments`, { key }));
    expect(list.entities.filter((a: any) => a.source === 'einvoice_embedded').map((a: any) => a.file_name)).toEqual(['evil0.pdf', 'passwd.pdf']);
  });

  it('the invoice e-mail attaches kept files as stored', async () => {
    const invoice = await newInvoice();
    const kept = await ok(await upload('sales/invoices', invoice.id, form(PDF, 'signed order.pdf', 'application/pdf')));
    const sent = await ok(await stack.api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { to: 'ap@acme.example', include_attachment: false, attachment_ids: [kept.id] } }));
    expect(sent.success).toBe(true);
    const [record] = await ok(await stack.api('/v1/CRM/emails?take=1'));
    expect(record.attachments).toEqual([{ id: 1, file_name: 'signed order.pdf', binary_content: null }]);
    const other = await newInvoice();
    const wrong = await expectProblem(
      await stack.api(`/v1/sales/invoices/${other.id}/email`, { method: 'POST', json: { to: 'ap@acme.example', attachment_ids: [kept.id] } }),
      422,
      'attachment_not_found',
    );
    expect(wrong.errors?.[0].path).toBe('attachment_ids[0]');
  });

  it('an e-mail names each kept file once and carries at most MAIL_ATTACHMENTS_MAX_BYTES of them (issue 71: five copies of one 10 MiB file)', async () => {
    const invoice = await newInvoice();
    const emailsBefore = ((await ok(await stack.api('/v1/CRM/emails?take=1000'))) as any[]).length;
    const kept = await ok(await upload('sales/invoices', invoice.id, form(PDF, 'order.pdf', 'application/pdf')));
    const twice = await expectProblem(await stack.api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { to: 'ap@acme.example', include_attachment: false, attachment_ids: [kept.id, kept.id, kept.id] } }), 400, 'validation_error');
    expect(twice.errors).toEqual([
      expect.objectContaining({ path: 'attachment_ids[1]', code: 'duplicate_attachment' }),
      expect.objectContaining({ path: 'attachment_ids[2]', code: 'duplicate_attachment' }),
    ]);
    // three files of nine tenths of the upload limit each: past the twice the limit this stack lets an e-mail carry
    const big = await Promise.all([1, 2, 3].map(async (n) => ok(await upload('sales/invoices', invoice.id, form(Buffer.concat([PDF, Buffer.alloc(Math.floor(0.9 * MAX) - PDF.length, n)]), `scan-${n}.pdf`, 'application/pdf')))));
    const heavy = await stack.api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { to: 'ap@acme.example', include_attachment: false, attachment_ids: big.map((b) => b.id) } });
    expect(heavy.status).toBe(413);
    expect((await heavy.json()).code).toBe('attachments_too_large');
    // nothing was sent or recorded; two of them go
    expect(((await ok(await stack.api('/v1/CRM/emails?take=1000'))) as any[]).length).toBe(emailsBefore);
    expect((await ok(await stack.api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { to: 'ap@acme.example', include_attachment: false, attachment_ids: big.slice(0, 2).map((b) => b.id) } }))).success).toBe(true);
  }, 60_000);
});
