import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { invoiceSchema } from '@ledgerline/contracts';
import { SALES_VIEW_COLUMNS } from '../../apps/sales/src/sales-documents/view.js';
import { DATABASE_URL, eventually, startStack, type Stack } from '../support/stack.js';
import { apiOf, invoiceBody, publishPaymentMatched } from './helpers.js';

/*
 * Decision 133: a document whose stored body is still its whole view is answered as the body's
 * text. These check that the shortcut never answers something the full view would not: after a
 * payment, after it falls overdue, in lists mixing both kinds, and for every field.
 */
let stack: Stack;
const api = apiOf(() => stack);
let orgId: number;
let db: pg.Client;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
  orgId = (await (await api('/v1/settings/organisation')).json()).id;
  db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}sales`) });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.close();
});

const viewIsBody = async (id: number) => (await db.query('select view_is_body from sales_documents where id = $1', [id])).rows[0].view_is_body as boolean;
/** Whether a read answers the document from its stored text (the read's own columns). */
const readAsStored = async (id: number) =>
  (await db.query(`select ${SALES_VIEW_COLUMNS} from sales_documents where id = $1`, [id])).rows[0].body_is_view as boolean;

describe('a document answered from its stored body', () => {
  it('answers GET and the list with the very text the POST answered, while nothing it shows has changed', async () => {
    const posted = await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ date_issued: today(), date_due: today(), notes: 'views: "quoted" \\ ünïcödé 😀' }) });
    expect(posted.status).toBe(200);
    const text = await posted.text();
    const inv = JSON.parse(text);
    expect(await viewIsBody(inv.id)).toBe(true);
    expect(await readAsStored(inv.id)).toBe(true);

    const got = await api(`/v1/sales/invoices/${inv.id}`);
    expect(got.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await got.text()).toBe(text);
    const list = await (await api('/v1/sales/invoices?search=views')).json();
    expect(list).toMatchObject({ total: 1, from: 0, aggregations: [] });
    expect(list.entities).toEqual([inv]);
    expect(invoiceSchema.safeParse(inv).success).toBe(true);
    expect(inv).toMatchObject({ amount_paid: 0, amount_due: 298, payment_status: 'unpaid', overdue_days: 0, edited_at: null });
  });

  it('answers a document without a due date from its stored text too', async () => {
    const posted = await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ date_due: null, notes: 'views undated' }) });
    const text = await posted.text();
    const inv = JSON.parse(text);
    expect(inv.date_due ?? null).toBeNull();
    expect(await readAsStored(inv.id)).toBe(true);
    expect(await (await api(`/v1/sales/invoices/${inv.id}`)).text()).toBe(text);
  });

  it('answers the figures a payment changed, and again after the payment is taken back', async () => {
    const posted = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ notes: 'views paid' }) })).text();
    const inv = JSON.parse(posted);
    // the overlay is stored last (decision 266)
    expect(Object.keys(inv).slice(-5)).toEqual(['amount_paid', 'amount_due', 'payment_status', 'edited_at', 'overdue_days']);
    await publishPaymentMatched(stack, orgId, { payment_id: 31, document: { type: 'sales_invoice', id: inv.id }, amount: 100, currency: 'CZK' });
    await eventually(async () => (await (await api(`/v1/sales/invoices/${inv.id}`)).json()).payment_status === 'partially_paid');
    expect(await viewIsBody(inv.id)).toBe(false);
    expect(await readAsStored(inv.id)).toBe(false);
    const paid = await (await api(`/v1/sales/invoices/${inv.id}`)).json();
    expect(paid).toEqual({ ...inv, amount_paid: 100, amount_due: 198, payment_status: 'partially_paid' });
    expect((await (await api('/v1/sales/invoices?search=views%20paid')).json()).entities).toEqual([paid]);
    // answered as the stored text up to the overlay and the overlay's values now: every other byte as posted
    const overlayAt = posted.lastIndexOf(',"amount_paid":');
    expect(await (await api(`/v1/sales/invoices/${inv.id}`)).text()).toBe(
      `${posted.slice(0, overlayAt)},"amount_paid":100,"amount_due":198,"payment_status":"partially_paid","edited_at":null,"overdue_days":${inv.overdue_days}}`,
    );

    await publishPaymentMatched(stack, orgId, { payment_id: 31, document: { type: 'sales_invoice', id: inv.id }, amount: -100, currency: 'CZK' });
    await eventually(async () => (await (await api(`/v1/sales/invoices/${inv.id}`)).json()).payment_status === 'unpaid');
    expect(await (await api(`/v1/sales/invoices/${inv.id}`)).json()).toEqual(inv);
  });

  it('counts the days overdue once the due date has passed, though the body says 0', async () => {
    const inv = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ date_issued: today(), date_due: today(), notes: 'views overdue' }) })).json();
    expect(inv.overdue_days).toBe(0);
    // three days pass: the due date moves back, with triggers off, so the flag stays set and only
    // the read's own test of the date can notice
    await db.query("set session_replication_role = 'replica'");
    await db.query('update sales_documents set date_due = $1 where id = $2', [daysAgo(3), inv.id]);
    await db.query("set session_replication_role = 'origin'");
    expect(await viewIsBody(inv.id)).toBe(true);
    expect(await readAsStored(inv.id)).toBe(false);

    const got = await (await api(`/v1/sales/invoices/${inv.id}`)).json();
    expect(got).toEqual({ ...inv, overdue_days: 3 });
    expect((await (await api('/v1/sales/invoices?search=views%20overdue')).json()).entities).toEqual([got]);
    // paid in full, nothing is overdue any more
    await publishPaymentMatched(stack, orgId, { payment_id: 32, document: { type: 'sales_invoice', id: inv.id }, amount: 298, currency: 'CZK' });
    await eventually(async () => (await (await api(`/v1/sales/invoices/${inv.id}`)).json()).payment_status === 'paid');
    expect(await (await api(`/v1/sales/invoices/${inv.id}`)).json()).toMatchObject({ overdue_days: 0, amount_due: 0 });
  });

  it('answers a document posted before the overlay was stored last (decision 266) from its whole view', async () => {
    const inv = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ notes: 'views older layout' }) })).json();
    // the body as an earlier version stored it: the overlay's fields among the others
    const { amount_paid, amount_due, payment_status, edited_at, overdue_days, ...rest } = inv;
    const older = { amount_paid, amount_due, ...rest, payment_status, edited_at, overdue_days, urls: rest.urls };
    await db.query("set session_replication_role = 'replica'");
    await db.query('update sales_documents set body = $1, amount_paid = 50, amount_due = 248, payment_status = $2, view_is_body = false where id = $3', [JSON.stringify(older), 'partially_paid', inv.id]);
    await db.query("set session_replication_role = 'origin'");
    const expected = { ...inv, amount_paid: 50, amount_due: 248, payment_status: 'partially_paid' };
    const got = await (await api(`/v1/sales/invoices/${inv.id}`)).text();
    expect(JSON.parse(got)).toEqual(expected);
    expect(Object.keys(JSON.parse(got))).toEqual(Object.keys(older));
    expect((await (await api('/v1/sales/invoices?search=views%20older')).json()).entities).toEqual([expected]);
  });

  it('posts a document already overdue with the flag clear and its days counted', async () => {
    const inv = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ date_issued: daysAgo(20), date_due: daysAgo(6), notes: 'views late' }) })).json();
    expect(inv.overdue_days).toBe(6);
    expect(await viewIsBody(inv.id)).toBe(false);
    expect(await (await api(`/v1/sales/invoices/${inv.id}`)).json()).toEqual(inv);
  });

  it('lists a page mixing both kinds as one valid JSON answer, page fields included', async () => {
    const page = await api('/v1/sales/invoices?search=views&take=2&from=1&sort=id');
    const text = await page.text();
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed)).toEqual(['total', 'total_exact', 'from', 'take', 'next_cursor', 'entities', 'aggregations']);
    expect(parsed).toMatchObject({ total: 6, total_exact: true, from: 1, take: 2, next_cursor: expect.any(String) });
    expect(parsed.entities).toHaveLength(2);
    for (const e of parsed.entities) expect(e).toEqual(await (await api(`/v1/sales/invoices/${e.id}`)).json());
    // an empty page is still a page
    expect(await (await api('/v1/sales/invoices?search=no-such-document')).json()).toEqual({ total: 0, total_exact: true, from: 0, take: expect.any(Number), next_cursor: null, entities: [], aggregations: [] });
  });
});
