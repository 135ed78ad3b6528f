import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';
import { CUSTOMER, invoiceBody, plainSpaces } from './helpers.js';

/*
 * What a Czech customer paying by hand reads on a printed invoice (issue 60), read back from the
 * PDF as text (pdftotext): the payment method, the domestic account beside the IBAN in groups of
 * four, the variable, constant and specific symbols, "Daňový doklad" for a VAT payer, and the
 * legal line at the foot of every page of a long document — in Czech, Slovak and English.
 */
const run = promisify(execFile);
let stack: Stack;
let dir: string;
const IBAN = 'CZ6508000000192000145399';
const LEGAL = 'Zapsáno v obchodním rejstříku u Městského soudu v Praze, oddíl C, vložka 123456 "a" <b> & \\ konec';

async function profile(json: Record<string, unknown>) {
  const res = await stack.api('/v1/settings/organisation', { method: 'PUT', json });
  expect(res.status, await res.clone().text()).toBe(200);
  await eventually(async () => {
    const [replica] = await sqlRows<{ profile: Record<string, unknown> }>(stack.services.sales!.deps.orm.em.fork(), 'select profile from kit_organisations where org_id = 1');
    const held = replica?.profile ?? {};
    // objects are stored with every field, the sent ones among them
    const has = (a: unknown, b: unknown): boolean =>
      b !== null && typeof b === 'object' ? Object.entries(b).every(([k, v]) => has((a as Record<string, unknown> | undefined)?.[k], v)) : a === b;
    return has(held, json);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-print-'));
  stack = await startStack({ services: ['sales'] });
  await profile({ name: 'Dodavatel a.s.', is_vat_payer: true, info_legal: LEGAL, bank_account: { iban: IBAN, bic: 'GIBACZPX' } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Each page's text of a printed document. */
async function printedPages(kind: 'invoices' | 'credit-notes', id: number): Promise<string[]> {
  const res = await stack.api(`/v1/sales/${kind}/${id}/pdf`);
  expect(res.status).toBe(200);
  const file = path.join(dir, `${kind}-${id}.pdf`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  const { stdout } = await run('pdftotext', ['-layout', file, '-']);
  return plainSpaces(stdout).split('\f').filter((p) => p.trim() !== '');
}
const oneLine = (s: string) => s.replace(/[ \t]+/g, ' ');

async function invoice(over: Record<string, unknown>) {
  const res = await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ bank_account: null, ...over }) });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

describe('the payment block and headings of a printed invoice', () => {
  it('Czech: tax document, bank transfer, the domestic account and the IBAN in fours, VS, KS and SS', async () => {
    const inv = await invoice({ payment_reference: '20261234', constant_symbol: '0308', specific_symbol: '77' });
    expect(inv).toMatchObject({ payment_method: null, constant_symbol: '0308', specific_symbol: '77' });
    const [page] = (await printedPages('invoices', inv.id)).map(oneLine);
    expect(page).toMatch(/Faktura\s+DAŇOVÝ DOKLAD/);
    expect(page).toContain('Způsob úhrady Převodem');
    expect(page).toContain('Bankovní účet 19-2000145399/0800');
    expect(page).toContain('IBAN CZ65 0800 0000 1920 0014 5399');
    expect(page).toContain('Variabilní symbol 20261234');
    expect(page).toContain('Konstantní symbol 0308');
    expect(page).toContain('Specifický symbol 77');
    // the reference is the variable symbol: not printed twice
    expect(page).not.toContain('Platební reference');
  });

  it('the variable symbol from the number when the reference is no symbol; cash and cash on delivery as the document says', async () => {
    const inv = await invoice({ payment_reference: 'OBJ-2026-77', payment_method: 'cash' });
    const [page] = (await printedPages('invoices', inv.id)).map(oneLine);
    expect(page).toContain('Způsob úhrady Hotově');
    expect(page).toContain(`Variabilní symbol ${inv.no.replace(/\D/g, '').slice(-10)}`);
    expect(page).toContain('Platební reference OBJ-2026-77');
    const cod = await invoice({ payment_method: 'cash_on_delivery', culture: 'sk-SK' });
    const [sk] = (await printedPages('invoices', cod.id)).map(oneLine);
    expect(sk).toMatch(/Faktúra\s+DAŇOVÝ DOKLAD/);
    expect(sk).toContain('Spôsob úhrady Dobierkou');
    expect(sk).toContain('Variabilný symbol 20261234');
    expect(sk).toContain('Bankový účet 19-2000145399/0800');
  });

  it('English: the same block in English words', async () => {
    const inv = await invoice({ culture: 'en-US', payment_method: 'card', constant_symbol: '0558' });
    const [page] = (await printedPages('invoices', inv.id)).map(oneLine);
    expect(page).toMatch(/Invoice\s+TAX DOCUMENT/);
    expect(page).toContain('Payment method Card');
    expect(page).toContain('Variable symbol 20261234');
    expect(page).toContain('Constant symbol 0558');
    expect(page).toContain('IBAN CZ65 0800 0000 1920 0014 5399');
  });

  it('the legal line stands at the foot of every page of a long invoice, printed as written', async () => {
    const items = Array.from({ length: 70 }, (_, i) => ({ title: `Položka ${i + 1}`, qty: 1, rate: 10, taxes: [{ tax_code: 'S21', tax_rate: 21 }] }));
    const inv = await invoice({ items });
    const pages = await printedPages('invoices', inv.id);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const [i, p] of pages.entries()) expect(oneLine(p), `page ${i + 1}`).toContain(oneLine(LEGAL));
    // once per page, not again at the end of the last
    expect(pages.at(-1)!.split('Zapsáno v obchodním rejstříku').length).toBe(2);
  });

  it('a credit note has no variable symbol to pay by, and a non-payer of VAT prints no "tax document"', async () => {
    const inv = await invoice({});
    const cn = await stack.api('/v1/sales/credit-notes', { method: 'POST', json: { customer: CUSTOMER, currency: 'CZK', culture: 'cs-CZ', date_issued: '2026-11-21', credited_doc_id: inv.id, items: [{ title: 'Konzultace', qty: 1, rate: 10, taxes: [{ tax_code: 'S21', tax_rate: 21 }] }] } });
    expect(cn.status, await cn.clone().text()).toBe(200);
    const [credit] = (await printedPages('credit-notes', (await cn.json()).id)).map(oneLine);
    expect(credit).toContain('Opravný daňový doklad');
    expect(credit).not.toContain('Variabilní symbol');
    await profile({ is_vat_payer: false });
    const plain = await invoice({});
    const [page] = (await printedPages('invoices', plain.id)).map(oneLine);
    expect(page).not.toContain('DAŇOVÝ DOKLAD');
    expect(page).toContain('Variabilní symbol 20261234');
    await profile({ is_vat_payer: true });
  });

  it('refuses a payment method or symbols that are none', async () => {
    for (const over of [{ payment_method: 'bitcoin' }, { constant_symbol: '12345' }, { specific_symbol: '12a' }, { constant_symbol: 308 }]) {
      const problem = await expectProblem(await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody(over) }), 400, 'validation_error');
      expect(problem.errors![0].path).toBe(Object.keys(over)[0]);
    }
  });
});

describe('a tax document in a foreign currency (Czech VAT act § 29: its VAT in the legal currency too)', () => {
  const TAXED = [
    { title: 'Konzultace', qty: 1, rate: 100, taxes: [{ tax_code: 'S21', tax_rate: 21 }] },
    { title: 'Kniha', qty: 2, rate: 50, taxes: [{ tax_code: 'S12', tax_rate: 12 }] },
  ];

  it('prints the recap in CZK at the rate used for tax beside the one in euros, rate by rate, with the total and the rate', async () => {
    const inv = await invoice({ currency: 'EUR', fx_rate: 25.1, items: TAXED });
    // 100 EUR at 21 % and 100 EUR at 12 %, at 25.100 CZK a euro
    expect(inv.taxes.map((t: Record<string, unknown>) => [t.tax_rate, t.tax_base_leg, t.tax_amount_leg])).toEqual([
      [21, 2510, 527.1],
      [12, 2510, 301.2],
    ]);
    expect(inv).toMatchObject({ currency_leg: 'CZK', tax_amount_leg: 828.3 });
    const pages = (await printedPages('invoices', inv.id)).map(oneLine);
    // on one page: the second recap does not push an empty footer onto a blank second one
    expect(pages).toHaveLength(1);
    const [page] = pages;
    // (headings print in capitals)
    expect(page).toContain('REKAPITULACE DPH');
    expect(page).toContain('DPH V CZK');
    expect(page).toMatch(/21 % 2 510,00 Kč 527,10 Kč/);
    expect(page).toMatch(/12 % 2 510,00 Kč 301,20 Kč/);
    expect(page).toContain('DPH celkem 828,30 Kč');
    expect(page).toContain('Kurz: 1 EUR = 25,100 CZK');
    // the euro recap stays as it was
    expect(page).toMatch(/21 % 100,00 € 21,00 €/);
  });

  it('states the tax rate when it differs from the invoice rate, in the culture of the document; none for a document in the legal currency', async () => {
    const inv = await invoice({ currency: 'EUR', fx_rate: 25.1, tax_fx_rate: 24.95, culture: 'en-US', items: TAXED });
    const [page] = (await printedPages('invoices', inv.id)).map(oneLine);
    // 21 EUR × 24.95 = 523.95; 12 EUR × 24.95 = 299.40
    expect(page).toContain('VAT IN CZK');
    expect(page).toMatch(/21% CZK 2,495\.00 CZK 523\.95/);
    expect(page).toMatch(/12% CZK 2,495\.00 CZK 299\.40/);
    expect(page).toContain('VAT total CZK 823.35');
    expect(page).toContain('Exchange rate: 1 EUR = 24.950 CZK');
    const domestic = await invoice({ items: TAXED });
    const [czk] = (await printedPages('invoices', domestic.id)).map(oneLine);
    expect(czk).toContain('REKAPITULACE DPH');
    expect(czk).not.toContain('DPH V CZK');
    expect(czk).not.toContain('Kurz');
  });
});

