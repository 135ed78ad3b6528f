import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { buildEnvelope } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { sqlRows } from '@ledgerline/service-kit';
import { CUSTOMER, VAT21, apiOf, expectProblem, invoiceBody, plainSpaces } from './helpers.js';

const run = promisify(execFile);

/** A real SMTP server: keeps what it receives, refuses recipients at refused.example. */
async function startSmtp() {
  const received: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (address.address.endsWith('@refused.example')) {
        const err = new Error('5.1.1 mailbox unavailable') as Error & { responseCode: number };
        err.responseCode = 550;
        return cb(err);
      }
      cb();
    },
    onData(stream, _session, cb) {
      simpleParser(stream).then(
        (mail) => {
          received.push(mail);
          cb();
        },
        (e) => cb(e),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return { received, url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let stack: Stack;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let dataDir: string;
let invoice: any;
let creditNote: any;
const api = apiOf(() => stack);

beforeAll(async () => {
  smtp = await startSmtp();
  dataDir = await mkdtemp(path.join(tmpdir(), 'ledgerline-docs-'));
  stack = await startStack({ services: ['sales'], env: { SMTP_URL: smtp.url, DATA_DIR: dataDir, MAIL_FROM: 'billing@supplier.example' } });
  await api('/v1/settings/organisation', {
    method: 'PUT',
    json: { name: 'Dodavatel a.s.', reg_no: '12345678', vat_no: 'CZ12345678', email: 'faktury@dodavatel.example', address: { address1: 'Na Příkopě 1', city: 'Praha', postal_code: '11000', country: 'CZ' } },
  });
  // The invoice snapshots the issuer from the sales replica of the profile: wait until it has arrived.
  await eventually(async () => {
    const em = stack.services.sales!.deps.orm.em.fork();
    const [replica] = await sqlRows<{ email: string }>(em, "select profile->>'email' as email from kit_organisations where name = 'Dodavatel a.s.'");
    return replica?.email === 'faktury@dodavatel.example';
  });
  const res = await api('/v1/sales/invoices', {
    method: 'POST',
    json: invoiceBody({ items: [{ title: '<script>alert(1)</script>', description: 'Konzultace & podpora', qty: 1, rate: 100, taxes: [VAT21] }] }),
  });
  expect(res.status).toBe(200);
  invoice = await res.json();
  expect(invoice.total_amount).toBe(121);
  const cn = await api('/v1/sales/credit-notes', {
    method: 'POST',
    json: { ...invoiceBody({ items: [{ title: 'Vrácení', qty: 1, rate: 100, taxes: [VAT21] }] }), credited_doc_id: invoice.id, customer: CUSTOMER },
  });
  expect(cn.status).toBe(200);
  creditNote = await cn.json();
});
afterAll(async () => {
  await stack?.close();
  await smtp?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function html(p: string) {
  const res = await api(p);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  return plainSpaces(await res.text());
}

describe('HTML renderings (GET /v1/sales/credit-notes/{id}/html and invoices)', () => {
  it('renders a credit note with its number, the credited invoice and the total formatted for the culture', async () => {
    const cs = await html(`/v1/sales/credit-notes/${creditNote.id}/html`);
    expect(cs).toContain('Opravný daňový doklad');
    expect(cs).toContain(creditNote.no);
    expect(cs).toContain(invoice.no);
    expect(cs).toMatch(/class="num total-amount">121,00 Kč</);
    expect(cs).toContain('Dodavatel a.s.');
    const en = await html(`/v1/sales/credit-notes/${creditNote.id}/html?culture=en-US`);
    expect(en).toContain('Credit note');
    expect(en).toMatch(/total-amount">CZK 121.00</);
    const sk = await html(`/v1/sales/credit-notes/${creditNote.id}/html?culture=sk-SK`);
    expect(sk).toContain('Dobropis');
    expect(sk).toContain('121,00 CZK'); // sk-SK names a foreign currency by its code
    // what a credit note leaves open is owed to the customer: to be refunded, never "amount due"
    expect(cs).toMatch(/<td>K vrácení<\/td><td class="num amount-due">121,00 Kč</);
    expect(cs).not.toContain('K úhradě');
    expect(en).toMatch(/<td>To be refunded<\/td><td class="num amount-due">CZK 121.00</);
    expect(en).not.toContain('Amount due');
    expect(sk).toContain('Na vrátenie');
    // an invoice still says what is due
    const inv = await html(`/v1/sales/invoices/${invoice.id}/html?culture=en-US`);
    expect(inv).toContain('Amount due');
    expect(inv).not.toContain('To be refunded');
  });

  it("without a culture, speaks the customer's country's language, else the organisation's", async () => {
    const post = async (country: string) => {
      const res = await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ culture: null, customer: { business_name: `Customer ${country}`, address: { country } } }) });
      expect(res.status).toBe(200);
      return (await res.json()).id as number;
    };
    expect(await html(`/v1/sales/invoices/${await post('SK')}/html`)).toContain('K úhrade');
    // a German customer: no German labels, so the Czech organisation's language
    expect(await html(`/v1/sales/invoices/${await post('DE')}/html`)).toContain('K úhradě');
  });

  it('escapes what documents carry: a line titled <script> comes out as text', async () => {
    const page = await html(`/v1/sales/invoices/${invoice.id}/html`);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('Konzultace &amp; podpora');
    expect(page).not.toContain('<script>');
    expect(page).toContain('123456789/0100');
    expect(page).toContain('20261234');
  });

  it('answers 404 for unknown documents and layouts, 400 for a bad culture', async () => {
    await expectProblem(await api('/v1/sales/credit-notes/999999/html'), 404, 'credit_note_not_found');
    await expectProblem(await api(`/v1/sales/credit-notes/${invoice.id}/html`), 404, 'credit_note_not_found');
    await expectProblem(await api(`/v1/sales/credit-notes/${creditNote.id}/html?layout=nope`), 404, 'template_not_found');
    const bad = await expectProblem(await api(`/v1/sales/invoices/${invoice.id}/html?culture=${encodeURIComponent('no such culture!')}`), 400);
    expect(bad.errors?.[0].path).toBe('culture');
    expect((await api(`/v1/sales/invoices/${invoice.id}/html?layout=default`)).status).toBe(200);
  });

  it('renders with a saved template once settings.template.saved has reached sales', async () => {
    const saved = await (
      await api('/v1/settings/templates', {
        method: 'POST',
        json: {
          code: 'brand',
          name: 'Brand',
          html_template: '<main class="brand">{{ title }} {{ doc.no }}: {{ doc.total_amount | money }} · {{ doc.items[0].title }} · {{ \'thanks\' | t }}</main>',
          l10n: [{ culture: 'cs-CZ', resource: 'thanks', value: 'Děkujeme' }, { culture: 'en-US', resource: 'thanks', value: 'Thank you' }],
          pdf_options: { page_size: 'Letter', orientation: 'landscape', margin_top: 5 },
        },
      })
    ).json();
    expect(saved.code).toBe('brand');
    const page = await eventually(async () => {
      const res = await api(`/v1/sales/invoices/${invoice.id}/html?layout=brand`);
      return res.status === 200 ? plainSpaces(await res.text()) : null;
    });
    expect(page).toBe(`<main class="brand">Faktura ${invoice.no}: 121,00 Kč · &lt;script&gt;alert(1)&lt;/script&gt; · Děkujeme</main>`);
    expect(await html(`/v1/sales/invoices/${invoice.id}/html?layout=brand&culture=en-US`)).toContain('Invoice');
  });

  it('a template that reaches for files or code renders nothing harmful, even if it got onto the bus', async () => {
    // Settings refuses such templates (400); forge the event to prove the renderer itself refuses them too.
    const bus = stack.services.settings!.deps.bus;
    const orgId = (await (await api('/v1/settings/organisation')).json()).id;
    for (const [id, code, source] of [
      [900001, 'forged-include', "{% include '/etc/passwd' %}"],
      [900002, 'forged-render', "before{% render '../../../../etc/hostname' %}after"],
    ] as const) {
      const ev = buildEnvelope('settings', { subject: 'settings.template.saved', orgId, resource: String(id), id: randomUUID(), data: { id, code, html_template: source } });
      await bus.js.publish(bus.subject(`settings.template.saved.${orgId}`), JSON.stringify(ev), { msgID: ev.id });
      const res = await eventually(async () => {
        const r = await api(`/v1/sales/invoices/${invoice.id}/html?layout=${code}`);
        return r.status === 404 ? null : r;
      });
      const problem = await expectProblem(res, 422, 'template_render_failed');
      expect(problem.detail).not.toMatch(/root:|\/bin\/|at .*\.ts/);
    }
    const code = await html(`/v1/sales/invoices/${invoice.id}/html?layout=brand`);
    expect(code).not.toContain('root:');
  });
});

async function pdfInfo(buf: Buffer, dir: string) {
  const file = path.join(dir, `${randomUUID()}.pdf`);
  await writeFile(file, buf);
  const { stdout } = await run('pdfinfo', [file]);
  return { file, info: stdout };
}

/** Share of dark pixels of page 1 rendered in grey at 30 dpi by pdftoppm (PGM: header, then one byte per pixel). */
async function inkCoverage(pdfFile: string): Promise<number> {
  const out = pdfFile.replace(/\.pdf$/, '');
  await run('pdftoppm', ['-r', '30', '-gray', '-f', '1', '-l', '1', '-singlefile', pdfFile, out]);
  const pgm = await readFile(`${out}.pgm`);
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 50).toString('latin1'))!;
  const [w, h] = [Number(header[1]), Number(header[2])];
  const pixels = pgm.subarray(header[0].length);
  expect(pixels.length).toBe(w * h);
  let dark = 0;
  for (const p of pixels) if (p < 160) dark++;
  return dark / pixels.length;
}

describe('PDF renderings', () => {
  it('prints the invoice as a real A4 PDF whose page is not blank', async () => {
    const res = await api(`/v1/sales/invoices/${invoice.id}/pdf?culture=cs-CZ`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="Invoice-${invoice.no}.pdf"`);
    const buf = Buffer.from(await res.arrayBuffer());
    expect(buf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const { file, info } = await pdfInfo(buf, dataDir);
    expect(info).toMatch(/Pages:\s+1/);
    expect(info).toMatch(/Page size:\s+595\.\d+ x 842\.\d+ pts \(A4\)/);
    const ink = await inkCoverage(file);
    expect(ink).toBeGreaterThan(0.005);
    expect(ink).toBeLessThan(0.5);
  });

  it('keeps a short invoice on one page; a long one flows onto more pages with the table header repeated', async () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `Položka ${i + 1}`, description: 'Konzultace a podpora', qty: 1 + i, rate: 100, taxes: [VAT21] }));
    const post = async (n: number) => {
      const res = await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ items: lines(n), notes: 'Děkujeme za spolupráci.', payment_reference: '20260042' }) });
      expect(res.status).toBe(200);
      return (await res.json()).id as number;
    };
    for (const culture of ['cs-CZ', 'en-US']) {
      const short = await api(`/v1/sales/invoices/${await post(3)}/pdf?culture=${culture}`);
      const { info } = await pdfInfo(Buffer.from(await short.arrayBuffer()), dataDir);
      expect(info, culture).toMatch(/Pages:\s+1\n/);
    }
    const long = await api(`/v1/sales/invoices/${await post(60)}/pdf?culture=cs-CZ`);
    const { file, info } = await pdfInfo(Buffer.from(await long.arrayBuffer()), dataDir);
    const pages = Number(/Pages:\s+(\d+)/.exec(info)![1]);
    expect(pages).toBeGreaterThanOrEqual(2);
    // every page carries the table's header row
    const { stdout } = await run('pdftotext', ['-layout', file, '-']);
    const perPage = stdout.split('\f').filter((p) => p.trim());
    expect(perPage).toHaveLength(pages);
    const withLines = perPage.filter((p) => /Položka \d+/.test(p));
    expect(withLines.length).toBeGreaterThanOrEqual(2);
    for (const page of withLines) expect(page).toMatch(/MNOŽSTVÍ/i);
  });

  it("honours the template's pdf_options (Letter, landscape) and prints credit notes too", async () => {
    const res = await api(`/v1/sales/invoices/${invoice.id}/pdf?layout=brand`);
    expect(res.status).toBe(200);
    const { info } = await pdfInfo(Buffer.from(await res.arrayBuffer()), dataDir);
    expect(info).toMatch(/Page size:\s+792 x 612 pts/);
    const cn = await api(`/v1/sales/credit-notes/${creditNote.id}/pdf`);
    expect(cn.status).toBe(200);
    const buf = Buffer.from(await cn.arrayBuffer());
    expect(buf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await expectProblem(await api('/v1/sales/credit-notes/999999/pdf'), 404, 'credit_note_not_found');
  });

  it('shares one browser between concurrent prints', async () => {
    const all = await Promise.all([1, 2, 3, 4].map(() => api(`/v1/sales/invoices/${invoice.id}/pdf`)));
    for (const res of all) {
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
  });
});

describe('invoice e-mail and e-mail records', () => {
  it('sends the invoice with its PDF attached over SMTP and records the attempt', async () => {
    const before = smtp.received.length;
    const res = await api(`/v1/sales/invoices/${invoice.id}/email?culture=en-US`, {
      method: 'POST',
      json: { to: 'Buyer <buyer@customer.example>', to_cc: 'cc@customer.example', subject: `Invoice ${invoice.no} from Dodavatel`, body: 'Please pay.', include_attachment: true },
    });
    expect(res.status).toBe(200);
    const result = await res.json();
    expect(result).toEqual({ id: expect.any(Number), success: true, to: 'Buyer <buyer@customer.example>', subject: `Invoice ${invoice.no} from Dodavatel`, no: invoice.no });
    const mail = await eventually(async () => smtp.received[before]);
    expect(mail.subject).toBe(`Invoice ${invoice.no} from Dodavatel`);
    expect((mail.to as { value: Array<{ address: string }> }).value.map((v) => v.address)).toEqual(['buyer@customer.example']);
    expect((mail.cc as { value: Array<{ address: string }> }).value.map((v) => v.address)).toEqual(['cc@customer.example']);
    expect((mail.from as { value: Array<{ address: string }> }).value[0].address).toBe('faktury@dodavatel.example');
    expect(mail.text?.trim()).toBe('Please pay.');
    expect(mail.attachments).toHaveLength(1);
    const [pdf] = mail.attachments;
    expect(pdf.contentType).toBe('application/pdf');
    expect(pdf.filename).toBe(`Invoice-${invoice.no}.pdf`);
    expect(pdf.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const records = await (await api('/v1/CRM/emails')).json();
    expect(records[0]).toMatchObject({
      id: result.id,
      from: 'faktury@dodavatel.example',
      to: 'Buyer <buyer@customer.example>',
      to_cc: 'cc@customer.example',
      subject: `Invoice ${invoice.no} from Dodavatel`,
      body: 'Please pay.',
      include_attachment: true,
      attachments: [{ id: 1, file_name: `Invoice-${invoice.no}.pdf`, binary_content: null }],
      status: 'sent',
      error: null,
      document_type: 'sales_invoice',
      document_id: invoice.id,
    });
  });

  it("fills the gaps from the invoice: the customer's address and a subject in the document's language", async () => {
    const before = smtp.received.length;
    const result = await (await api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { include_attachment: false } })).json();
    expect(result).toMatchObject({ success: true, to: CUSTOMER.email, subject: `Faktura ${invoice.no}`, no: invoice.no });
    const mail = await eventually(async () => smtp.received[before]);
    expect(mail.subject).toBe(`Faktura ${invoice.no}`);
    expect(plainSpaces(mail.text ?? '')).toContain('121,00 Kč');
    expect(mail.attachments).toHaveLength(0);
  });

  it('records an SMTP refusal as a failed e-mail record and answers success: false', async () => {
    const res = await api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { to: 'nobody@refused.example', subject: 'Will bounce', include_attachment: false } });
    expect(res.status).toBe(200);
    const result = await res.json();
    expect(result).toEqual({ id: expect.any(Number), success: false, to: 'nobody@refused.example', subject: 'Will bounce', no: invoice.no });
    const [latest] = await (await api('/v1/CRM/emails?take=1')).json();
    expect(latest).toMatchObject({ id: result.id, status: 'failed', to: 'nobody@refused.example', subject: 'Will bounce' });
    expect(latest.error).toMatch(/550/);
  });

  it('validates addresses (400 naming the field) and the invoice (404) before sending anything', async () => {
    const before = smtp.received.length;
    const cc = await expectProblem(await api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { to: 'ok@customer.example', to_cc: 'ok2@customer.example, not-an-address' } }), 400, 'validation_error');
    expect(cc.errors?.map((e) => e.path)).toEqual(['to_cc']);
    const from = await expectProblem(await api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { from: 'a@x.example, b@x.example' } }), 400);
    expect(from.errors?.map((e) => e.path)).toEqual(['from']);
    const header = await expectProblem(await api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { to: 'a@x.example\r\nBcc: victim@x.example' } }), 400);
    expect(header.errors?.map((e) => e.path)).toEqual(['to']);
    await expectProblem(await api('/v1/sales/invoices/999999/email', { method: 'POST', json: { to: 'a@x.example' } }), 404, 'invoice_not_found');
    await expectProblem(await api(`/v1/sales/invoices/${invoice.id}/email?layout=nope`, { method: 'POST', json: { to: 'a@x.example' } }), 404, 'template_not_found');
    expect(smtp.received.length).toBe(before);
  });

  it('lists e-mail records newest first, 10 by default, paged', async () => {
    for (let i = 0; i < 8; i++) {
      await api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { to: `r${i}@customer.example`, subject: `Batch ${i}`, include_attachment: false } });
    }
    const all = await (await api('/v1/CRM/emails?take=100')).json();
    expect(all.length).toBe(11);
    expect(all.map((r: { id: number }) => r.id)).toEqual([...all.map((r: { id: number }) => r.id)].sort((a, b) => b - a));
    const first = await (await api('/v1/CRM/emails')).json();
    expect(first).toEqual(all.slice(0, 10));
    expect(await (await api('/v1/CRM/emails?from=10')).json()).toEqual(all.slice(10));
    await expectProblem(await api('/v1/CRM/emails?take=5000'), 400, 'validation_error');
  });
});

describe('tenancy', () => {
  it("another organisation can neither render nor mail this organisation's documents, nor see its e-mail records", async () => {
    const org = await (await api('/v1/admin/organisations', { method: 'POST', key: null, headers: { authorization: `Bearer ${stack.operatorToken}` }, json: { name: 'Cizí s.r.o.' } })).json();
    const key = org.admin_key.key;
    await expectProblem(await api(`/v1/sales/invoices/${invoice.id}/html`, { key }), 404, 'invoice_not_found');
    await expectProblem(await api(`/v1/sales/credit-notes/${creditNote.id}/pdf`, { key }), 404, 'credit_note_not_found');
    await expectProblem(await api(`/v1/sales/invoices/${invoice.id}/email`, { key, method: 'POST', json: { to: 'a@x.example' } }), 404, 'invoice_not_found');
    expect(await (await api('/v1/CRM/emails', { key })).json()).toEqual([]);
    // Our template codes mean nothing in their organisation either.
    const theirs = await (await api('/v1/sales/invoices', { key, method: 'POST', json: invoiceBody() })).json();
    await expectProblem(await api(`/v1/sales/invoices/${theirs.id}/html?layout=brand`, { key }), 404, 'template_not_found');
  });
});
