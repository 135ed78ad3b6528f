import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk, expectProblem } from '../support/assertions.js';
import { startRegisterServer, type RegisterServer } from '../support/registers.js';
import { einvoiceDir } from '../support/einvoice.js';
import { sqlRows } from '@ledgerline/service-kit';

/*
 * Issue 74: the directory of customers and vendors through the gateway — checked identifiers,
 * cursor list and search, archive instead of delete, the contacts scope, other organisations'
 * ids — documents naming a contact and keeping their copy, aged balances by contact, the public
 * registers (ARES, VIES, the VAT payers' register) on a local server answering their formats,
 * a bill's §109 check, and the e-invoice import matching its seller.
 */

let stack: Stack;
let registers: RegisterServer;
const api = (p: string, init?: Parameters<Stack['api']>[1]) => stack.api(p, init);
const post = (p: string, json: unknown, key?: string) => api(p, { method: 'POST', json, key });

const ACME = {
  business_name: 'AUTOMOTOLAND CZ s.r.o.',
  reg_no: '2683 5746',
  vat_no: 'cz 26835746',
  address: { address1: 'Ostravská 1941/38a', city: 'Hlučín', postal_code: '748 01', country: 'CZ' },
  email: 'Faktury@Automotoland.example',
  bank_accounts: [{ account_number: '351361/5500' }, { iban: 'CZ65 0800 0000 1920 0014 5399' }],
  payment_terms_days: 14,
  currency: 'CZK',
  preferred_locale: 'cs-CZ',
};

const invoiceItems = [{ title: 'Servis', qty: 1, rate: 1000, taxes: [{ tax_code: 'S', tax_rate: 21 }] }];

beforeAll(async () => {
  registers = await startRegisterServer();
  stack = await startStack({ services: ['sales', 'purchase', 'accounting'], env: { ...registers.env, REGISTER_TIMEOUT_MS: '500' } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await registers?.close();
});

describe('the directory', () => {
  it('creates a contact with its identifiers checked and normalised, and says so in an event', async () => {
    const nc = await connect({ servers: stack.env.NATS_URL });
    const sub = nc.subscribe(`${stack.env.NATS_SUBJECT_PREFIX}settings.contact.created.>`, { max: 1, timeout: 10_000 });
    const created = await expectOk(await post('/v1/contacts', ACME));
    expect(created).toMatchObject({
      business_name: 'AUTOMOTOLAND CZ s.r.o.',
      reg_no: '26835746',
      vat_no: 'CZ26835746',
      email: 'faktury@automotoland.example',
      bank_accounts: [
        { account_number: '351361/5500', iban: 'CZ7555000000000000351361', bic: null },
        { account_number: null, iban: 'CZ6508000000192000145399', bic: null },
      ],
      payment_terms_days: 14,
      currency: 'CZK',
      archived: false,
      used: false,
    });
    for await (const m of sub) {
      const event = JSON.parse(new TextDecoder().decode(m.data));
      expect(event.type).toBe('com.ledgerline.settings.contact.created.v1');
      expect(event.data).toMatchObject({ id: created.id, vat_no: 'CZ26835746' });
    }
    await nc.close();
    expect(await expectOk(await api(`/v1/contacts/${created.id}`))).toEqual(created);
  });

  it('refuses identifiers that fail their checks, naming each field, and stores nothing', async () => {
    const before = (await expectOk(await api('/v1/contacts?archived=all'))).total;
    const problem = await expectProblem(
      await post('/v1/contacts', {
        business_name: '  ',
        reg_no: '26835747',
        vat_no: 'DE12345',
        bank_accounts: [{ account_number: '19-2000145398/0800' }, { iban: 'CZ66 0800 0000 1920 0014 5399' }, {}, { account_number: '19-2000145399/0800', iban: 'CZ7555000000000000351361' }],
      }),
      400,
      'validation_error',
    );
    expect(problem.errors!.map((e) => [e.path, e.code])).toEqual([
      ['business_name', 'required'],
      ['vat_no', 'invalid_vat_no'],
      ['bank_accounts[0].account_number', 'invalid_account_number'],
      ['bank_accounts[1].iban', 'invalid_iban'],
      ['bank_accounts[2]', 'required'],
      ['bank_accounts[3].iban', 'iban_mismatch'],
    ]);
    // the IČO is checked when the contact is Czech (here: no country, no VAT number)
    const ico = await expectProblem(await post('/v1/contacts', { business_name: 'X', reg_no: '26835747' }), 400);
    expect(ico.errors).toEqual([expect.objectContaining({ path: 'reg_no', code: 'invalid_reg_no', message: expect.stringContaining('check digit') })]);
    // a foreign company number is kept as written
    expect((await expectOk(await post('/v1/contacts', { business_name: 'GmbH', reg_no: 'HRB 12345', address: { country: 'DE' } }))).reg_no).toBe('HRB 12345');
    for (const bad of [{ business_name: 'A\u0000B' }, { business_name: 'x', payment_terms_days: 366 }, { business_name: 'x', email: 'not-mail' }, { business_name: 'x', bank_accounts: Array(21).fill({ iban: 'CZ6508000000192000145399' }) }, { business_name: 'x', unknown_field: 1 }, []]) {
      const res = await post('/v1/contacts', bad);
      expect(res.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
    }
    expect((await expectOk(await api('/v1/contacts?archived=all'))).total).toBe(before + 1);
  });

  it('lists by cursor and finds by name, IČO (with its spaces), DIČ and e-mail', async () => {
    for (const n of ['Alfa', 'Beta', 'Gama']) await expectOk(await post('/v1/contacts', { business_name: `${n} s.r.o.`, email: `${n.toLowerCase()}@example.cz` }));
    const first = await expectOk(await api('/v1/contacts?take=2&sort=business_name'));
    expect(first.entities).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await expectOk(await api(`/v1/contacts?take=2&sort=business_name&cursor=${first.next_cursor}`));
    const names = [...first.entities, ...second.entities].map((c: any) => c.business_name);
    expect(names.slice(0, 4)).toEqual([...names.slice(0, 4)].sort());
    for (const q of ['automotoland', '268 357 46', 'cz26835746', 'FAKTURY@']) {
      const found = await expectOk(await api(`/v1/contacts?search=${encodeURIComponent(q)}`));
      expect(found.entities.map((c: any) => c.business_name), q).toEqual(['AUTOMOTOLAND CZ s.r.o.']);
    }
    expect((await expectOk(await api('/v1/contacts?search=beta@'))).entities).toHaveLength(1);
    await expectProblem(await api('/v1/contacts?cursor=!!'), 400);
    await expectProblem(await api('/v1/contacts?sort=password'), 400);
  });

  it('is answered idempotently under an Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'contact-once-1' };
    const a = await expectOk(await api('/v1/contacts', { method: 'POST', json: { business_name: 'Jednou s.r.o.' }, headers }));
    const b = await expectOk(await api('/v1/contacts', { method: 'POST', json: { business_name: 'Jednou s.r.o.' }, headers }));
    expect(b.id).toBe(a.id);
    expect((await expectOk(await api('/v1/contacts?search=Jednou'))).total).toBe(1);
  });

  it('keeps to its organisation and to the contacts scope', async () => {
    const mine = await expectOk(await post('/v1/contacts', { business_name: 'Mine a.s.' }));
    const other = await expectOk(await api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Other', country: 'CZ', legal_currency: 'CZK' } }));
    const otherKey = other.admin_key.key;
    await expectProblem(await api(`/v1/contacts/${mine.id}`, { key: otherKey }), 404, 'contact_not_found');
    await expectProblem(await api(`/v1/contacts/${mine.id}`, { method: 'PUT', key: otherKey, json: { business_name: 'Stolen' } }), 404);
    await expectProblem(await api(`/v1/contacts/${mine.id}`, { method: 'DELETE', key: otherKey }), 404);
    expect((await expectOk(await api('/v1/contacts?search=Mine', { key: otherKey }))).total).toBe(0);
    // another organisation's contact named on an invoice is not found, and nothing is issued
    const problem = await expectProblem(await post('/v1/sales/invoices', { contact_id: mine.id, date_issued: '2026-11-30', items: invoiceItems }, otherKey), 422, 'contact_not_found');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'contact_id' })]);
    expect((await expectOk(await api('/v1/sales/invoices', { key: otherKey }))).total).toBe(0);

    const salesOnly = (await expectOk(await post('/v1/settings/security/api-keys', { name: 'sales', scopes: ['sales:read', 'sales:write'] }))).key;
    const reader = (await expectOk(await post('/v1/settings/security/api-keys', { name: 'contacts reader', scopes: ['contacts:read'] }))).key;
    await expectProblem(await api('/v1/contacts', { key: salesOnly }), 403, 'insufficient_scope');
    expect((await api('/v1/contacts', { key: reader })).status).toBe(200);
    await expectProblem(await post('/v1/contacts', { business_name: 'No' }, reader), 403, 'insufficient_scope');
    // naming a contact on a document needs the document's scope only (decision 234)
    const invoice = await expectOk(await post('/v1/sales/invoices', { contact_id: mine.id, currency: 'CZK', date_issued: '2026-11-30', items: invoiceItems }, salesOnly));
    expect(invoice.customer).toMatchObject({ id: mine.id, business_name: 'Mine a.s.' });
  });
});

describe('documents naming a contact', () => {
  it('copy it, take its currency and terms, and keep the copy when the contact changes', async () => {
    const contact = await expectOk(await post('/v1/contacts', { ...ACME, business_name: 'Kopie s.r.o.', vat_no: null, reg_no: null }));
    const invoice = await expectOk(await post('/v1/sales/invoices', { contact_id: contact.id, date_issued: '2026-11-30', customer: { email: 'jinam@example.cz' }, items: invoiceItems }));
    expect(invoice).toMatchObject({
      contact_id: contact.id,
      currency: 'CZK',
      date_due: '2026-12-14',
      total_amount: 1210,
      customer: { id: contact.id, business_name: 'Kopie s.r.o.', email: 'jinam@example.cz', address: { city: 'Hlučín', country: 'CZ' } },
    });
    await expectOk(await api(`/v1/contacts/${contact.id}`, { method: 'PUT', json: { ...ACME, business_name: 'Přejmenováno s.r.o.', vat_no: null, reg_no: null } }));
    expect((await expectOk(await api(`/v1/sales/invoices/${invoice.id}`))).customer.business_name).toBe('Kopie s.r.o.');
    expect((await expectOk(await api(`/v1/contacts/${contact.id}`))).used).toBe(true);

    // deleting a used contact archives it; an archived one is not named on new documents; an unused one goes
    expect(await expectOk(await api(`/v1/contacts/${contact.id}`, { method: 'DELETE' }))).toEqual({ id: contact.id, deleted: false, archived: true });
    expect((await expectOk(await api('/v1/contacts?search=Přejmenováno'))).total).toBe(0);
    expect((await expectOk(await api('/v1/contacts?search=Přejmenováno&archived=true'))).total).toBe(1);
    await expectProblem(await post('/v1/sales/invoices', { contact_id: contact.id, date_issued: '2026-11-30', items: invoiceItems }), 422, 'contact_archived');
    const unused = await expectOk(await post('/v1/contacts', { business_name: 'Nepoužitý' }));
    expect(await expectOk(await api(`/v1/contacts/${unused.id}`, { method: 'DELETE' }))).toEqual({ id: unused.id, deleted: true, archived: false });
    await expectProblem(await api(`/v1/contacts/${unused.id}`), 404);

    // neither a customer nor a contact: 400 naming the customer; a contact without a currency: naming currency
    const none = await expectProblem(await post('/v1/sales/invoices', { currency: 'CZK', date_issued: '2026-11-30', items: invoiceItems }), 400);
    expect(none.errors).toEqual([expect.objectContaining({ path: 'customer' })]);
    const plain = await expectOk(await post('/v1/contacts', { business_name: 'Bez měny' }));
    const noCurrency = await expectProblem(await post('/v1/sales/invoices', { contact_id: plain.id, date_issued: '2026-11-30', items: invoiceItems }), 400);
    expect(noCurrency.errors).toEqual([expect.objectContaining({ path: 'currency' })]);
  });

  it('a recurring invoice naming a contact issues each invoice with the contact as it is that day', async () => {
    const contact = await expectOk(await post('/v1/contacts', { business_name: 'Předplatitel s.r.o.', currency: 'CZK', payment_terms_days: 7 }));
    const today = new Date().toISOString().slice(0, 10);
    const schedule = await expectOk(await post('/v1/sales/recurring-invoices', { template: { contact_id: contact.id, items: invoiceItems }, schedule: { frequency: 'monthly', start_date: today, count: 1 } }));
    const issued = await eventually(async () => {
      const page = await expectOk(await api(`/v1/sales/invoices?recurring_invoice_id=${schedule.id}`));
      return page.entities[0];
    }, 15_000);
    expect(issued).toMatchObject({ contact_id: contact.id, currency: 'CZK', customer: { id: contact.id, business_name: 'Předplatitel s.r.o.' } });
    // a template naming neither a customer nor a contact is refused when it is made
    const refused = await expectProblem(await post('/v1/sales/recurring-invoices', { template: { items: invoiceItems }, schedule: { frequency: 'monthly', start_date: today } }), 400);
    expect(refused.errors!.map((e) => e.path)).toEqual(['template.customer', 'template.currency']);
  });

  it('group the aged receivables and statements by contact, and bills take the vendor with its account', async () => {
    const customer = await expectOk(await post('/v1/contacts', { business_name: 'Dlužník s.r.o.', currency: 'CZK', payment_terms_days: 10 }));
    for (const date of ['2026-10-01', '2026-11-20']) await expectOk(await post('/v1/sales/invoices', { contact_id: customer.id, date_issued: date, items: invoiceItems }));
    const aged = await expectOk(await api(`/v1/sales/reports/aged-receivables?as_of=2026-12-01`));
    const line = aged.entities.find((l: any) => l.contact.id === customer.id);
    expect(line).toMatchObject({ contact: { id: customer.id, name: 'Dlužník s.r.o.' }, documents: 2, days_31_60: 1210, days_1_30: 1210, total: 2420 });
    const statement = await expectOk(await api(`/v1/sales/reports/customer-statement?customer_id=${customer.id}&date_from=2026-10-01&date_to=2026-11-30`));
    expect(statement.currencies[0]).toMatchObject({ currency: 'CZK', opening_balance: 0, closing_balance: 2420 });

    const vendor = await expectOk(await post('/v1/contacts', { business_name: 'Dodavatel s.r.o.', currency: 'CZK', bank_accounts: [{ account_number: '19-2000145399/0800' }] }));
    const bill = await expectOk(await post('/v1/purchase/bills', { type: { id: 1 }, contact_id: vendor.id, date_issued: '2026-11-20', items: [{ qty: 1, rate: 500, taxes: [{ tax_code: 'S', tax_rate: 21 }] }] }));
    expect(bill).toMatchObject({ contact_id: vendor.id, currency: 'CZK', bank_account_number: '19-2000145399/0800', vendor: { id: vendor.id, business_name: 'Dodavatel s.r.o.' }, vendor_check: null });
    const payables = await expectOk(await api('/v1/purchase/reports/aged-payables?as_of=2026-12-01'));
    expect(payables.entities.find((l: any) => l.contact.id === vendor.id)).toMatchObject({ total: 605 });
  });
});

describe('the registers', () => {
  it('ARES fills a contact, keeps the answer and says how old it is', async () => {
    const lookup = await expectOk(await api('/v1/contacts/lookup?reg_no=26835746'));
    expect(lookup).toMatchObject({
      reg_no: '26835746',
      business_name: 'AUTOMOTOLAND CZ s.r.o.',
      vat_no: 'CZ26835746',
      address: { address1: 'Ostravská 1941/38a', postal_code: '748 01', city: 'Hlučín', country: 'CZ' },
      legal_form: '112',
      date_established: '2004-05-31',
      date_dissolved: null,
      source: { register: 'ares', cached: false, age_seconds: 0 },
    });
    // what it answers is a contact to create
    const { source: _source, legal_form: _lf, date_established: _de, date_dissolved: _dd, ...fields } = lookup;
    expect((await expectOk(await post('/v1/contacts', fields))).vat_no).toBe('CZ26835746');
    const asked = registers.asked.filter((a) => a.register === 'ares').length;
    await new Promise((r) => setTimeout(r, 1100));
    const again = await expectOk(await api('/v1/contacts/lookup?reg_no=26835746'));
    expect(again.source).toMatchObject({ cached: true, read_at: lookup.source.read_at, age_seconds: expect.any(Number) });
    expect(again.source.age_seconds).toBeGreaterThanOrEqual(1);
    expect(registers.asked.filter((a) => a.register === 'ares').length).toBe(asked);

    await expectProblem(await api('/v1/contacts/lookup?reg_no=00006947'), 404, 'not_in_register');
    const bad = await expectProblem(await api('/v1/contacts/lookup?reg_no=12345678'), 400, 'validation_error');
    expect(bad.errors).toEqual([expect.objectContaining({ path: 'reg_no', code: 'invalid_reg_no' })]);
  });

  it('a register that fails is named in a 502, 503 or 504, within its timeout, never a 500', async () => {
    const cases: Array<[RegisterServer['mode']['ares'], number, string]> = [
      ['slow', 504, 'register_timeout'],
      ['error', 502, 'register_error'],
      ['garbage', 502, 'register_error'],
    ];
    for (const [mode, status, code] of cases) {
      registers.mode.ares = mode;
      const started = Date.now();
      const problem = await expectProblem(await api('/v1/contacts/lookup?reg_no=27082440'), status, code);
      expect(problem.detail).toMatch(/^ARES/);
      expect(Date.now() - started).toBeLessThan(5000);
    }
    registers.mode.ares = 'ok';
    // VIES: a member state's system down is 503 naming it; a number outside the EU is 400
    const down = await expectProblem(await api('/v1/contacts/vat-check?vat_no=FR12345678901'), 503, 'register_unavailable');
    expect(down.detail).toContain('VIES');
    expect(down.detail).toContain('MS_UNAVAILABLE');
    await expectProblem(await api('/v1/contacts/vat-check?vat_no=CHE123456789'), 400);
  });

  it('VIES confirms an EU VAT number on the day, with the consultation number', async () => {
    expect(await expectOk(await api('/v1/contacts/vat-check?vat_no=SK 2020411811'))).toMatchObject({
      vat_no: 'SK2020411811',
      valid: true,
      name: 'Slovenská sporiteľňa, a.s.',
      address: 'Tomášikova 48, 832 37 Bratislava',
      request_date: '2026-12-02',
      consultation_number: 'WAPIAAAAY5xH0Zb2',
      source: { register: 'vies' },
    });
    expect(await expectOk(await api('/v1/contacts/vat-check?vat_no=DE811569869'))).toMatchObject({ valid: true, name: null, address: null });
    expect(await expectOk(await api('/v1/contacts/vat-check?vat_no=DE999999999'))).toMatchObject({ valid: false });
  });

  it("an intra-EU supply records its customer's VIES check on its day; other invoices do not ask", async () => {
    const intraEu = (vat_no: string) =>
      post('/v1/sales/invoices', {
        customer: { business_name: 'EU customer', vat_no, address: { country: vat_no.slice(0, 2) } },
        currency: 'CZK',
        date_issued: '2026-12-01',
        items: [{ title: 'Goods', qty: 1, rate: 5000, supply: 'goods', taxes: [{ tax_code: 'K', tax_rate: 0 }] }],
      });
    expect((await expectOk(await intraEu('SK2020411811'))).customer_vat_check).toMatchObject({ status: 'valid', vat_no: 'SK2020411811', request_date: '2026-12-02', consultation_number: 'WAPIAAAAY5xH0Zb2', reasons: [] });
    expect((await expectOk(await intraEu('DE999999999'))).customer_vat_check).toMatchObject({ status: 'invalid', reasons: [expect.stringContaining('VIES does not confirm')] });
    const down = await expectOk(await intraEu('FR12345678901'));
    expect(down.customer_vat_check).toMatchObject({ status: 'unavailable', reasons: [expect.stringContaining('MS_UNAVAILABLE')] });
    expect(down.total_amount).toBe(5000);
    const asked = registers.asked.length;
    const domestic = await expectOk(await post('/v1/sales/invoices', { customer: { business_name: 'Tuzemec' }, currency: 'CZK', date_issued: '2026-12-01', items: invoiceItems }));
    expect(domestic.customer_vat_check).toBeUndefined();
    expect(registers.asked.length).toBe(asked);
  });

  it("the VAT payers' register: status, published accounts, and a bill's §109 check on its day", async () => {
    expect(await expectOk(await api('/v1/contacts/vat-payer?vat_no=CZ26835746'))).toMatchObject({
      vat_no: 'CZ26835746',
      registered: true,
      unreliable: false,
      tax_office: '463',
      published_accounts: [{ account_number: '351361/5500', iban: 'CZ7555000000000000351361', published_on: '2020-04-04' }],
    });
    expect(await expectOk(await api('/v1/contacts/vat-payer?vat_no=CZ12345679'))).toMatchObject({
      unreliable: true,
      unreliable_since: '2026-03-01',
      published_accounts: [{ account_number: '19-2000145399/0800' }, { account_number: null, iban: 'SK3112000000198742637541' }],
    });
    expect(await expectOk(await api('/v1/contacts/vat-payer?vat_no=CZ00006947'))).toMatchObject({ registered: false, unreliable: null, published_accounts: [] });

    const bill = (vat: string, account: string, rate: number) =>
      post('/v1/purchase/bills', { type: { id: 1 }, vendor: { business_name: 'V', vat_no: vat }, currency: 'CZK', date_issued: '2026-12-01', bank_account_number: account, items: [{ qty: 1, rate, taxes: [{ tax_code: 'S', tax_rate: 21 }] }] });
    // published account, above the limit: nothing guaranteed
    expect((await expectOk(await bill('CZ26835746', '351361/5500', 500_000))).vendor_check).toMatchObject({ status: 'ok', unreliable_payer: false, account_published: true, over_limit: true, reasons: [] });
    // an account it has not published, above twice the cash limit (605 000 > 540 000): a risk
    const unpublished = (await expectOk(await bill('CZ26835746', '19-2000145399/0800', 500_000))).vendor_check;
    expect(unpublished).toMatchObject({ status: 'risk', account_published: false, over_limit: true, reasons: [expect.stringContaining('§109(2)(c)')] });
    // the same below the limit (363 000): fine
    expect((await expectOk(await bill('CZ26835746', '19-2000145399/0800', 300_000))).vendor_check).toMatchObject({ status: 'ok', over_limit: false });
    // an unreliable payer: a risk at any amount
    expect((await expectOk(await bill('CZ12345679', '19-2000145399/0800', 100))).vendor_check).toMatchObject({ status: 'risk', unreliable_payer: true, reasons: [expect.stringContaining('unreliable')] });
    // the register down: the bill is recorded, its check unavailable (no answer kept for this payer today)
    registers.mode.vat_payers = 'error';
    const unavailable = await expectOk(await bill('CZ27082440', '19-2000145399/0800', 100));
    expect(unavailable.vendor_check).toMatchObject({ status: 'unavailable', reasons: [expect.stringContaining("VAT payers' register")] });
    registers.mode.vat_payers = 'ok';
    // a foreign vendor is not checked
    expect((await expectOk(await bill('DE811569869', 'DE89370400440532013000', 100))).vendor_check).toBeNull();
    // nor is a buyer that is no VAT payer: §109 guarantees a VAT payer's purchases
    const small = await expectOk(await api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Neplátce', country: 'CZ', legal_currency: 'CZK', is_vat_payer: false } }));
    // (once purchase knows the organisation from settings' event)
    const em = stack.services.purchase!.deps.orm.em.fork();
    await eventually(async () => (await sqlRows<{ is_vat_payer: boolean }>(em, 'select is_vat_payer from kit_organisations where org_id = ?', [small.organisation.id]))[0]?.is_vat_payer === false, 10_000);
    const smallBill = await expectOk(await post('/v1/purchase/bills', { type: { id: 1 }, vendor: { business_name: 'V', vat_no: 'CZ12345679' }, currency: 'CZK', date_issued: '2026-12-01', items: [{ qty: 1, rate: 100 }] }, small.admin_key.key));
    expect(smallBill.vendor_check).toBeNull();
  });
});

describe('e-invoice import', () => {
  it("matches the seller to a contact by its Peppol id, or makes one, so its bills share it", async () => {
    const org = await expectOk(await api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Buyer AS', country: 'SE', legal_currency: 'EUR' } }));
    const key = org.admin_key.key;
    const xml = readFileSync(path.join(einvoiceDir(), 'examples', 'peppol-base-example.xml'), 'utf8');
    const importAs = (no: string) =>
      eventually(async () => {
        const res = await api('/v1/purchase/bills/import', { method: 'POST', key, body: xml.replace(/<cbc:ID>Snippet1<\/cbc:ID>/, `<cbc:ID>${no}</cbc:ID>`), headers: { 'content-type': 'application/xml' } });
        return res.status === 200 ? res.json() : null;
      }, 15_000);
    const first = (await importAs('Snippet-A')).bill;
    const second = (await importAs('Snippet-B')).bill;
    expect(first.contact_id).toEqual(expect.any(Number));
    expect(second.contact_id).toBe(first.contact_id);
    expect(second.vendor.id).toBe(first.contact_id);
    const contacts = await expectOk(await api('/v1/contacts', { key }));
    expect(contacts.entities).toEqual([
      expect.objectContaining({ id: first.contact_id, business_name: 'SupplierOfficialName Ltd', peppol_id: '0088:9482348239847239874', used: true, bank_accounts: [] }),
    ]);
  });
});
