import { describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { accountingTransactionPageSchema } from '@ledgerline/contracts';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, NATS_URL } from '../support/stack.js';
import { accountingOnly, bankTransaction, bill, creditNote, invoice, payout, SUBJECTS } from './support.js';

/*
 * GET /v1/accounting/transactions answers each entry as read back from the ledger; the event
 * accounting.transaction.posted carries the view built from the rows as they were inserted. An
 * integration reads both as one shape: each listed entry must equal its event, field for field and
 * figure for figure, over postings that use every part of the view (tax rows, reverse charge, a
 * deduction ratio, foreign currency, payments, two rows summed into one act row, a reversed
 * version), in either language of the chart and in whatever order the page is sorted; an account
 * the chart no longer has is named by its number. (Decision 247 wrote the page another way and
 * held it to this test.)
 */

const file = accountingOnly();
/** What decision 260's stored views mark slots with, and JSON's own quote and escape, as a document's text. */
const FORGED = '\u0001s\u0001 \u0001g311\u0001 "\\ ☃';
type Entry = Record<string, unknown> & { id: number; accounting_status: string; rows: Array<Record<string, unknown>> };

async function page(query: string, lang?: string): Promise<{ entities: Entry[]; next_cursor: string | null; total: number }> {
  const res = await file.stack.api(`/v1/accounting/transactions${query}`, { headers: lang ? { 'accept-language': lang } : {} });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

/** Every accounting.transaction.posted event of organisation 1, its source document left out (the list does not carry it). */
async function postedEvents(): Promise<Entry[]> {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    const stream = `${file.stack.env.NATS_SUBJECT_PREFIX.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}ACCOUNTING`;
    const info = await jsm.streams.info(stream);
    const out: Entry[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (!msg || !/accounting\.transaction\.posted\.1$/.test(msg.subject)) continue;
      const { source_document: _source, ...view } = JSON.parse(new TextDecoder().decode(msg.data)).data;
      out.push(view as Entry);
    }
    return out;
  } finally {
    await nc.close();
  }
}

describe('ledger entries as listed and as announced', () => {
  it('lists every entry as its event carried it, in English and in Czech, in any order', async () => {
    const p = (subject: Parameters<typeof file.bus.publish>[0], data: unknown, orgId = 1) => file.bus.publish(subject, data, { orgId });
    await p(SUBJECTS.salesInvoicePosted, invoice({ id: 1, date: '2026-03-02', lines: [{ base: 1000, rate: 21 }, { base: 99.9, rate: 12 }, { base: 333.33, rate: 21 }] }));
    await p(SUBJECTS.salesInvoicePosted, invoice({ id: 2, date: '2026-03-03', currency: 'EUR', fx_rate: 25.125, lines: [{ base: 120.5, rate: 21 }] }));
    await p(SUBJECTS.purchaseBillPosted, bill({ id: 3, date: '2026-03-04', partner: { country: 'DE', vat_no: 'DE123456789' }, lines: [{ base: 5000, rate: 21, reverse_charge: true }, { base: 400, rate: 21, tax_deduction_ratio: 0.5 }, { base: 250, rate: 21, gl_account: '50199' }] }));
    await p(SUBJECTS.salesCreditNotePosted, creditNote({ id: 4, date: '2026-03-05', lines: [{ base: 100, rate: 21 }], credited_doc_id: 1 }));
    await p(SUBJECTS.financeBankTransactionRecorded, bankTransaction({ id: 5, amount: 400, date: '2026-03-06', paid: { type: 'sales_invoice', id: 1 } }));
    // a text holding what a stored view marks its slots with (decision 260) is answered as written
    await p(SUBJECTS.financeBankTransactionRecorded, bankTransaction({ id: 8, amount: 12.34, date: '2026-03-06', description: FORGED }));
    await p(SUBJECTS.salesInvoicePosted, invoice({ id: 7, date: '2026-03-02', lines: [{ base: 200, rate: 21 }] }));
    // a payout settling two invoices: two rows on 311, one act row
    await p(SUBJECTS.financePayoutPosted, payout({ id: 6, date: '2026-03-07', version: 1, lines: [{ amount: 50, paid: { type: 'sales_invoice', id: 1 } }, { amount: 20.1, paid: { type: 'sales_invoice', id: 7 } }, { amount: -2.5, gl_account: '568' }] }));
    // the payout replaced: its first posting reversed, the second posted
    await p(SUBJECTS.financePayoutPosted, payout({ id: 6, date: '2026-03-07', version: 2, lines: [{ amount: 60, paid: { type: 'sales_invoice', id: 1 } }, { amount: -3, gl_account: '568' }] }));
    // another organisation's invoice is never listed
    await p(SUBJECTS.salesInvoicePosted, invoice({ id: 1, date: '2026-03-02', lines: [{ base: 7, rate: 21 }] }), 2);

    const events = await eventually(async () => {
      const all = await postedEvents();
      return all.length >= 10 ? all : null;
    }, 20_000, 100);
    const en = await eventually(async () => {
      const listed = await page('?take=100');
      return listed.entities.length === events.length ? listed : null;
    }, 10_000, 100);
    accountingTransactionPageSchema.parse(en);
    expect(en.total).toBe(events.length);

    // field for field as announced; an entry reversed since differs only in its status and edit time
    const byId = new Map(en.entities.map((e) => [e.id, e]));
    for (const event of events) {
      const listed = byId.get(event.id)!;
      expect(listed, `entry ${event.id}`).toBeDefined();
      if (listed.accounting_status === 'reversed') expect({ ...event, accounting_status: 'reversed', edited_at: listed.edited_at }).toEqual(listed);
      else expect(event).toEqual(listed);
    }

    // the mix used what it was meant to: each of these would compare nothing if it were absent
    const rows = en.entities.flatMap((e) => e.rows as Array<{ taxes: Array<{ is_reverse_charge: boolean }>; gl_account: { id: number | null; name: string; number: string } }>);
    expect(rows.some((r) => r.taxes.some((t) => t.is_reverse_charge))).toBe(true);
    expect(rows.find((r) => r.gl_account.number === '50199')?.gl_account).toMatchObject({ id: expect.any(Number), number: '50199' });
    expect(en.entities.some((e) => e.currency === 'EUR' && (e.fx_rates as unknown[]).length > 0)).toBe(true);
    expect(en.entities.some((e) => e.reverses_id !== null)).toBe(true);
    expect(en.entities.filter((e) => e.accounting_status === 'reversed')).toHaveLength(1);
    // the first payout's two rows on 311 read as one act row, summed to the cent
    const replaced = en.entities.find((e) => e.type === 'payout' && e.accounting_status === 'reversed')!;
    expect(replaced.rows).toHaveLength(4);
    const act = replaced.act_rows as Array<{ type: string; debit: number; credit: number; gl_account: { number: string } }>;
    expect(act.map((a) => [a.type, a.gl_account.number, a.debit, a.credit])).toEqual([
      ['bank', '221', 67.6, 0],
      ['settlement', '311', 0, 70.1],
      ['settlement', '568', 2.5, 0],
    ]);
    expect([replaced.debit, replaced.credit]).toEqual([70.1, 70.1]);

    const forged = en.entities.find((e) => e.description === FORGED);
    expect(forged, 'the entry whose text holds marks').toBeDefined();
    expect((forged!.rows as Array<{ description: string | null }>).some((r) => r.description === FORGED)).toBe(true);

    // each entry was stored with its view; a page mixing entries with and without one (posted
    // before views were stored, or by a rebuild) answers the same, and a renamed account shows its
    // new name in both
    const em = () => file.stack.services.accounting!.deps.orm.em.fork();
    const [{ n }] = await sqlRows<{ n: number }>(em(), `select count(*)::int as n from ledger_entry_views where org_id = 1`);
    expect(n).toBe(events.length);
    await sqlRows(em(), `update gl_accounts set name_en = 'Bank (renamed)' where org_id = 1 and number = '221'`);
    const renamedBank = JSON.parse(JSON.stringify(en.entities), (key, value) => (key === 'gl_account' && value?.number === '221' ? { ...value, name: 'Bank (renamed)' } : value));
    expect((await page('?take=100')).entities).toEqual(renamedBank);
    await sqlRows(em(), `delete from ledger_entry_views where org_id = 1 and transaction_id % 2 = 0`);
    const [{ left }] = await sqlRows<{ left: number }>(em(), `select count(*)::int as left from ledger_entry_views where org_id = 1`);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(events.length);
    expect((await page('?take=100')).entities).toEqual(renamedBank);

    // an account the chart no longer has (a ledger older than its chart) is named by its number
    await sqlRows(file.stack.services.accounting!.deps.orm.em.fork(), `delete from gl_accounts where org_id = 1 and number = '50199'`);
    const after = await page('?take=100');
    const orphan = after.entities.flatMap((e) => e.rows as Array<{ gl_account: { number: string } }>).find((r) => r.gl_account.number === '50199')!;
    expect(orphan.gl_account).toEqual({ id: null, number: '50199', name: 'Account 50199', description: null });

    expect(after.entities).toEqual(JSON.parse(JSON.stringify(renamedBank), (key, value) => (key === 'gl_account' && value?.number === '50199' ? orphan.gl_account : value)));

    // in Czech only the accounts' names differ
    const { entities: chart } = (await (await file.stack.api('/v1/accounting/accounts?take=1000', { headers: { 'accept-language': 'cs-CZ' } })).json()) as { entities: Array<{ number: string; name: string }> };
    const czech = new Map(chart.map((a) => [a.number, a.name]));
    const renamed = JSON.parse(JSON.stringify(after.entities), (key, value) =>
      key === 'gl_account' && value ? { ...value, name: czech.get(value.number) ?? `Účet ${value.number}` } : value,
    );
    expect((await page('?take=100', 'cs-CZ')).entities).toEqual(renamed);

    // the page keeps the order it was sorted in, by cursor too
    const newestFirst = await page('?take=100&sort=-date_posting');
    expect(newestFirst.entities.map((e) => e.id)).toEqual([...en.entities].sort((a, b) => String(b.date_posting).localeCompare(String(a.date_posting)) || a.id - b.id).map((e) => e.id));
    const walked: Entry[] = [];
    let cursor: string | null = '';
    for (let i = 0; i < 10 && cursor !== null; i++) {
      const next = await page(`?take=3&sort=-date_posting${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      walked.push(...next.entities);
      cursor = next.next_cursor;
    }
    expect(walked).toEqual(newestFirst.entities);
  });
});
