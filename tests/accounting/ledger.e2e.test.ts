import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { eventually, startStack, DATABASE_URL, NATS_URL, type Stack } from '../support/stack.js';
import { rowCopies } from '../support/bulk-copy.js';
import { accountingTransactionPageSchema, parseEventData } from '@ledgerline/contracts';
import { positional } from '@ledgerline/service-kit';
import { CREDITED_SECTIONS_SQL } from '../../apps/accounting/src/domain/ledger-store.js';
import { FIRST_PAGE_SQL, SUMS, SUMS_SQL } from '../../apps/accounting/src/domain/account-ledger.js';
import { bankTransaction, creditNote, invoice, payout, publisher, vendorCredit, bill, SUBJECTS, type Publisher } from './support.js';

let stack: Stack;
let bus: Publisher;
beforeAll(async () => {
  stack = await startStack({ services: ['accounting'] });
  bus = await publisher(stack);
  await transactions(); // the caller's key is verified and cached once, as in steady operation
});
afterAll(async () => {
  await bus?.close();
  await stack?.close();
});

interface Row {
  debit: number;
  credit: number;
  gl_account: { number: string; name: string };
  taxes: Array<Record<string, unknown>>;
}
interface Tx {
  id: number;
  type: string;
  no: string | null;
  accounting_status: string;
  date_posting: string;
  debit: number;
  credit: number;
  rows: Row[];
  act_rows: Array<{ type: string; debit: number; credit: number; gl_account: { number: string } }>;
  source: { type: string; id: number; version: number };
}

async function transactions(query = ''): Promise<{ total: number; from: number; take: number; entities: Tx[] }> {
  const res = await stack.api(`/v1/accounting/transactions${query}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { total: number; from: number; take: number; entities: Tx[] };
  accountingTransactionPageSchema.parse(body); // the contract's shape
  return body;
}

/** Waits (at most a second) for the entry of a source document and returns it. */
async function entryFor(type: string, id: number, date: string, version = 1): Promise<Tx> {
  return eventually(async () => {
    const { entities } = await transactions(`?date_posting=[${date};${date}]&take=1000`);
    return entities.find((t) => t.source.type === type && t.source.id === id && t.source.version === version && t.type !== 'reversal');
  }, 3000, 20);
}

/** The entry as "Dr 311 298.00" lines, order-independent. */
function lines(t: Tx): string[] {
  return t.rows.map((r) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit.toFixed(2)}`)).sort();
}

describe('posting documents from the bus', () => {
  it('posts a sales invoice within a second: Dr 311 298.00 / Cr 604 250.00, Cr 343 48.00, with VAT rows', async () => {
    const doc = invoice({ id: 1, date: '2025-03-10', lines: [{ base: 150, rate: 21 }, { base: 50, rate: 21 }, { base: 50, rate: 12 }] });
    expect(doc.total_amount).toBe(298);
    const started = Date.now();
    await bus.publish(SUBJECTS.salesInvoicePosted, doc);
    const t = await entryFor('sales_invoice', 1, '2025-03-10');
    // Within a second (steady state is ~50 ms from publish to commit); the bound is only
    // asserted when the machine is not saturated by other test runs.
    if (loadavg()[0] < cpus().length * 2) expect(Date.now() - started).toBeLessThan(1000);
    expect(lines(t)).toEqual(['Cr 343 48.00', 'Cr 604 250.00', 'Dr 311 298.00']);
    expect(t).toMatchObject({ type: 'sales_invoice', no: 'INV1', accounting_status: 'posted', date_posting: '2025-03-10', debit: 298, credit: 298 });
    const vat = t.rows.find((r) => r.gl_account.number === '343')!;
    expect(vat.taxes).toHaveLength(2);
    expect(vat.taxes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tax_rate: 21, tax_base_out_leg: 200, tax_amount_out_leg: 42, tax_return_base_out: '1', tax_control_statement: 'A.5', credit: 42 }),
        expect.objectContaining({ tax_rate: 12, tax_base_out_leg: 50, tax_amount_out_leg: 6, tax_return_base_out: '2', tax_control_statement: 'A.5', credit: 6 }),
      ]),
    );
    expect(t.rows.find((r) => r.gl_account.number === '311')!.gl_account.name).toBe('Customers (receivables)');
  });

  it('posts a credit note: Dr 604 100.00, Dr 343 21.00 / Cr 311 121.00', async () => {
    await bus.publish(SUBJECTS.salesCreditNotePosted, creditNote({ id: 2, date: '2025-03-11', lines: [{ base: 100, rate: 21 }], credited_doc_id: 1, credited_doc_no: 'INV1' }));
    const t = await entryFor('sales_credit_note', 2, '2025-03-11');
    expect(lines(t)).toEqual(['Cr 311 121.00', 'Dr 343 21.00', 'Dr 604 100.00']);
    const tax = t.rows.find((r) => r.gl_account.number === '343')!.taxes[0];
    expect(tax).toMatchObject({ tax_base_out_leg: -100, tax_amount_out_leg: -21, tax_control_statement: 'A.5', debit: 21 });
  });

  it('a credit note whose invoice reaches the ledger after it waits for it and reports in the invoice’s section', async () => {
    // the invoice is large (A.4); the credit note alone would be A.5. Its event arrives first.
    await bus.publish(SUBJECTS.salesCreditNotePosted, creditNote({ id: 61, date: '2025-03-13', lines: [{ base: 100, rate: 21 }], credited_doc_id: 60, credited_doc_no: 'INV60' }));
    await new Promise((r) => setTimeout(r, 300));
    const { entities: early } = await transactions('?date_posting=[2025-03-13;2025-03-13]&take=1000');
    expect(early.filter((t) => t.source.id === 61)).toEqual([]);
    await bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 60, date: '2025-03-12', lines: [{ base: 20000, rate: 21 }] }));
    const inv = await entryFor('sales_invoice', 60, '2025-03-12');
    expect(inv.rows.find((r) => r.gl_account.number === '343')!.taxes[0]).toMatchObject({ tax_control_statement: 'A.4' });
    const t = await eventually(async () => {
      const { entities } = await transactions('?date_posting=[2025-03-13;2025-03-13]&take=1000');
      return entities.find((x) => x.source.type === 'sales_credit_note' && x.source.id === 61);
    }, 15_000, 50);
    expect(t.rows.find((r) => r.gl_account.number === '343')!.taxes[0]).toMatchObject({ tax_amount_out_leg: -21, tax_control_statement: 'A.4' });
  });

  it('a burst of credit notes posts each in its own invoice’s section, whether it names the invoice by id, by number or both', async () => {
    await bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 70, no: 'INV70', date: '2025-03-15', lines: [{ base: 20000, rate: 21 }] }));
    await bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 71, no: 'INV71', date: '2025-03-15', lines: [{ base: 100, rate: 21 }] }));
    await entryFor('sales_invoice', 70, '2025-03-15');
    await entryFor('sales_invoice', 71, '2025-03-15');
    const credits = [
      { id: 72, credited_doc_id: 70, credited_doc_no: 'INV70', section: 'A.4' },
      { id: 73, credited_doc_id: 71, credited_doc_no: 'INV71', section: 'A.5' },
      { id: 74, credited_doc_id: null, credited_doc_no: 'INV70', section: 'A.4' },
      { id: 75, credited_doc_id: 70, credited_doc_no: null, section: 'A.4' },
      // names by number only an invoice the ledger does not know: posts at once, in its own section
      { id: 76, credited_doc_id: null, credited_doc_no: 'NOT-POSTED', section: 'A.5' },
    ];
    // published together, so the ledger applies them as one batch (or a few)
    await Promise.all(credits.map((c) => bus.publish(SUBJECTS.salesCreditNotePosted, creditNote({ id: c.id, date: '2025-03-16', lines: [{ base: 100, rate: 21 }], credited_doc_id: c.credited_doc_id, credited_doc_no: c.credited_doc_no }))));
    for (const c of credits) {
      const t = await entryFor('sales_credit_note', c.id, '2025-03-16');
      expect(lines(t)).toEqual(['Cr 311 121.00', 'Dr 343 21.00', 'Dr 604 100.00']);
      expect({ id: c.id, section: t.rows.find((r) => r.gl_account.number === '343')!.taxes[0].tax_control_statement }).toEqual({ id: c.id, section: c.section });
    }
  });

  it('posts a vendor credit: Dr 321 1210.00 / Cr 504 1000.00, Cr 343 210.00', async () => {
    await bus.publish(SUBJECTS.purchaseVendorCreditPosted, vendorCredit({ id: 3, date: '2025-03-12', lines: [{ base: 1000, rate: 21 }] }));
    const t = await entryFor('purchase_vendor_credit', 3, '2025-03-12');
    expect(lines(t)).toEqual(['Cr 343 210.00', 'Cr 504 1000.00', 'Dr 321 1210.00']);
    expect(t.rows.find((r) => r.gl_account.number === '343')!.taxes[0]).toMatchObject({ tax_return_amount_claim: '40', tax_amount_claim_leg: -210, tax_control_statement: 'B.3' });
  });

  it('posts a vendor bill with partial deduction: the non-deductible tax goes to 504', async () => {
    await bus.publish(SUBJECTS.purchaseBillPosted, bill({ id: 4, date: '2025-03-12', lines: [{ base: 20000, rate: 21, tax_deduction_ratio: 0.5 }] }));
    const t = await entryFor('purchase_bill', 4, '2025-03-12');
    expect(lines(t)).toEqual(['Cr 321 24200.00', 'Dr 343 2100.00', 'Dr 504 20000.00', 'Dr 504 2100.00']);
    expect(t.rows.find((r) => r.gl_account.number === '343')!.taxes[0]).toMatchObject({ tax_amount_claim_leg: 2100, tax_control_statement: 'B.2', tax_deduction_ratio: 0.5 });
  });

  it('posts bank payments: Dr 221 / Cr 311 for a paid invoice, 395 when unmatched, money out the other way', async () => {
    await bus.publish(SUBJECTS.financeBankTransactionRecorded, bankTransaction({ id: 5, amount: 298, date: '2025-03-13', paid: { type: 'sales_invoice', id: 1, no: 'INV1' } }));
    await bus.publish(SUBJECTS.financeBankTransactionRecorded, bankTransaction({ id: 6, amount: 77.5, date: '2025-03-13' }));
    await bus.publish(SUBJECTS.financeBankTransactionRecorded, bankTransaction({ id: 7, amount: -1210, date: '2025-03-13', paid: { type: 'purchase_bill', id: 4 } }));
    await bus.publish(SUBJECTS.financeBankTransactionRecorded, bankTransaction({ id: 8, amount: -35, date: '2025-03-13', gl_account: '568' }));
    expect(lines(await entryFor('bank_transaction', 5, '2025-03-13'))).toEqual(['Cr 311 298.00', 'Dr 221 298.00']);
    expect(lines(await entryFor('bank_transaction', 6, '2025-03-13'))).toEqual(['Cr 395 77.50', 'Dr 221 77.50']);
    expect(lines(await entryFor('bank_transaction', 7, '2025-03-13'))).toEqual(['Cr 221 1210.00', 'Dr 321 1210.00']);
    expect(lines(await entryFor('bank_transaction', 8, '2025-03-13'))).toEqual(['Cr 221 35.00', 'Dr 568 35.00']);
  });

  it('posts a payout, and a replaced payout reverses the old entry and posts the new one', async () => {
    await bus.publish(SUBJECTS.financePayoutPosted, payout({ id: 9, version: 1, date: '2025-03-14', lines: [{ amount: 500, paid: { type: 'sales_invoice', id: 1 } }, { amount: -12.5, gl_account: '568', description: 'fee' }] }));
    const v1 = await entryFor('payout', 9, '2025-03-14');
    expect(lines(v1)).toEqual(['Cr 311 500.00', 'Dr 221 487.50', 'Dr 568 12.50']);

    await bus.publish(SUBJECTS.financePayoutPosted, payout({ id: 9, version: 2, date: '2025-03-14', lines: [{ amount: 600, paid: { type: 'sales_invoice', id: 1 } }, { amount: -15, gl_account: '568' }] }));
    const v2 = await entryFor('payout', 9, '2025-03-14', 2);
    expect(lines(v2)).toEqual(['Cr 311 600.00', 'Dr 221 585.00', 'Dr 568 15.00']);
    const all = (await transactions('?date_posting=2025-03-14')).entities.filter((t) => t.source.type === 'payout');
    expect(all).toHaveLength(3);
    const old = all.find((t) => t.id === v1.id)!;
    expect(old.accounting_status).toBe('reversed');
    expect(lines(old)).toEqual(lines(v1)); // amounts never change
    const reversal = all.find((t) => t.type === 'reversal')!;
    expect(lines(reversal)).toEqual(['Cr 221 487.50', 'Cr 568 12.50', 'Dr 311 500.00']);
    expect(reversal.source).toMatchObject({ type: 'payout', id: 9, version: 1 });

    // an older version arriving late changes nothing
    await bus.publish(SUBJECTS.financePayoutPosted, payout({ id: 9, version: 1, date: '2025-03-14', lines: [{ amount: 1, gl_account: '568' }] }));
    await new Promise((r) => setTimeout(r, 300));
    expect((await transactions('?date_posting=2025-03-14')).entities.filter((t) => t.source.type === 'payout')).toHaveLength(3);
  });

  it('never posts twice: the same event redelivered, or the same fact under another event id', async () => {
    const doc = invoice({ id: 10, date: '2025-04-01', lines: [{ base: 1000, rate: 21 }] });
    const id = await bus.publish(SUBJECTS.salesInvoicePosted, doc);
    await entryFor('sales_invoice', 10, '2025-04-01');
    await bus.publish(SUBJECTS.salesInvoicePosted, doc, { id }); // JetStream dedups it
    await bus.publish(SUBJECTS.salesInvoicePosted, doc, { id, msgId: `${id}-late` }); // a redelivery past JetStream's dedup window: the inbox absorbs it
    await bus.publish(SUBJECTS.salesInvoicePosted, doc); // another event id, same fact: the unique source key absorbs it
    await new Promise((r) => setTimeout(r, 400));
    const { entities } = await transactions('?date_posting=2025-04-01');
    expect(entities.filter((t) => t.source.type === 'sales_invoice' && t.source.id === 10)).toHaveLength(1);
  });

  it('dead-letters an event that cannot balance, writing nothing', async () => {
    const nc = await connect({ servers: NATS_URL });
    const jsm = await jetstreamManager(nc);
    const doc = { ...invoice({ id: 11, date: '2025-04-02', lines: [{ base: 100, rate: 21 }] }), total_amount_leg: 999 };
    await bus.publish(SUBJECTS.salesInvoicePosted, doc, { validate: false });
    const dlqStream = `${stack.env.NATS_SUBJECT_PREFIX.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}DLQ`;
    const msg = await eventually(async () => {
      const m = await jsm.streams.getMessage(dlqStream, { last_by_subj: `${stack.env.NATS_SUBJECT_PREFIX}dlq.accounting.sales.invoice.posted.1` }).catch(() => null);
      return m;
    }, 3000);
    expect(msg.header?.get('x-dead-letter-reason')).toMatch(/does not balance/);
    const { entities } = await transactions('?date_posting=2025-04-02');
    expect(entities).toHaveLength(0);
    await nc.close();
  });

  it('emits accounting.transaction.posted for integrations', async () => {
    const nc = await connect({ servers: NATS_URL });
    const jsm = await jetstreamManager(nc);
    const stream = `${stack.env.NATS_SUBJECT_PREFIX.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}ACCOUNTING`;
    const m = await eventually(async () => jsm.streams.getMessage(stream, { last_by_subj: `${stack.env.NATS_SUBJECT_PREFIX}accounting.transaction.posted.1` }).catch(() => null), 3000);
    const env = JSON.parse(new TextDecoder().decode(m.data));
    expect(env).toMatchObject({ type: 'com.ledgerline.accounting.transaction.posted.v1', orgid: '1' });
    expect(env.data.debit).toBe(env.data.credit);
    expect(env.data.source_document).toBeTruthy();
    parseEventData(SUBJECTS.accountingTransactionPosted, env.data);
    // every event carries its transaction exactly as GET /v1/accounting/transactions answers it (English names), plus its
    // source; an entry reversed since then differs only in its status and edit time
    const { entities } = await transactions('?take=1000');
    const info = await jsm.streams.info(stream);
    let compared = 0;
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (!msg || !/accounting\.transaction\.posted\.\d+$/.test(msg.subject)) continue;
      const { source_document: _source, ...asPosted } = JSON.parse(new TextDecoder().decode(msg.data)).data;
      const listed = entities.find((t) => t.id === asPosted.id)! as unknown as Record<string, unknown>;
      expect(listed).toBeDefined();
      if (listed.accounting_status === 'reversed') expect({ ...asPosted, accounting_status: 'reversed', edited_at: listed.edited_at }).toEqual(listed);
      else expect(asPosted).toEqual(listed);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(10);
    await nc.close();
  });
});

/** `fn` with a client of its own on the stack's accounting database, ended whatever `fn` does. */
async function withAccountingDb<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}accounting`) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * How a statement read `table` (decision 271): whether an index's condition named the account,
 * the rows the table's scan kept and those it fetched only to throw away; and the statement's rows.
 * The planner is kept to indexes: a table this small may be read whole by choice, and what is
 * asked is whether the index can pick the account.
 */
async function accountScan(client: pg.Client, sql: string, params: unknown[], table: string) {
  await client.query('set enable_seqscan = off');
  const { text } = positional(sql);
  const [{ 'QUERY PLAN': [plan] }] = (await client.query(`explain (analyze, format json) ${text}`, params)).rows;
  const nodes: Array<Record<string, any>> = [];
  const visit = (n: Record<string, any>) => (nodes.push(n), (n.Plans ?? []).forEach(visit));
  visit(plan.Plan);
  // the table's scan, and the index scan under it when the planner takes a bitmap
  const scan = nodes.find((n) => n['Relation Name'] === table)!;
  const cond = nodes.some((n) => (n === scan || String(n['Index Name'] ?? '').startsWith(table)) && String(n['Index Cond']).includes('gl_account_number'));
  return { answered: plan.Plan['Actual Rows'] as number, seen: { cond, read: scan['Actual Rows'], thrownAway: scan['Rows Removed by Filter'] ?? 0 } };
}

describe('the ledger at scale', () => {
  it('a credit finds its credited document by id or number in a few pages, however many documents the organisation has', async () => {
    await bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 80, date: '2025-06-30', lines: [{ base: 100, rate: 21 }] }));
    await entryFor('sales_invoice', 80, '2025-06-30');
    await withAccountingDb(async (client) => {
      // 8 000 invoices of an organisation of their own (headers are enough for the lookup; the
      // ledger is append-only, so they stay, apart from every other test's organisation)
      // (in short transactions: a long one anywhere in the cluster keeps other tests' dead index
      // entries from being marked, which the outbox relay's test reads)
      const insert = await rowCopies(client, 'accounting_transactions', {
        replaced: { id: '5000000 + g', org_id: '777', uid: 'gen_random_uuid()', source_id: '5000000 + g', no: "'BULK' || g" },
        source: "d.org_id = 1 and d.source_type = 'sales_invoice' and d.source_id = 80",
        series: '$1::int, $1::int + 499',
      });
      for (let from = 1; from <= 8000; from += 500) await client.query(insert, [from]);
      await client.query('analyze accounting_transactions');
      const { text } = positional(CREDITED_SECTIONS_SQL);
      const lookup = async (id: number | null, no: string | null) => {
        const [{ 'QUERY PLAN': [plan] }] = (await client.query(`explain (analyze, buffers, format json) ${text}`, [[0], [id], [no], 777, 'sales_invoice'])).rows;
        return { found: plan.Plan['Actual Rows'], pages: (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0) };
      };
      // by id, by number, or neither: from a few index and heap pages (the organisation's rows fill hundreds)
      const byId = await lookup(5000123, null);
      const byNumber = await lookup(null, 'BULK456');
      const neither = await lookup(-1, 'NO-SUCH-NUMBER');
      expect({ byId: byId.found, byNumber: byNumber.found, neither: neither.found }).toEqual({ byId: 1, byNumber: 1, neither: 0 });
      expect(Math.max(byId.pages, byNumber.pages, neither.pages)).toBeLessThan(30);
    });
  }, 60_000);

  it("an account's ledger reads that account's rows of each day from the index, not every account's from the table (decision 271)", async () => {
    await withAccountingDb(async (client) => {
      // an organisation of its own: one entry with 3 000 rows on ten accounts on one day, 300 on
      // each (debit = credit on every row, so it balances; the ledger is append-only, so they stay)
      await client.query('begin');
      const [{ id }] = (
        await client.query(
          `insert into accounting_transactions (uid, org_id, book_id, type, source_type, source_id, date_posting, currency, legal_currency, total)
           values (gen_random_uuid(), 778, 1, 'journal_entry', 'journal_entry', 1, '2025-07-01', 'CZK', 'CZK', 3000) returning id`,
        )
      ).rows;
      await client.query(
        `insert into ledger_rows (org_id, transaction_id, book_id, ord, role, date_posting, gl_account_number, debit, credit)
         select 778, $1, 1, g, 'journal', '2025-07-01', (310 + g % 10)::text, 1, 1 from generate_series(1, 3000) g`,
        [id],
      );
      await client.query('commit');
      await client.query('analyze ledger_rows');
      const { answered, seen } = await accountScan(client, FIRST_PAGE_SQL, [778, 1, '2025-07-01', '2025-07-31', '311', '311', 101, '0', 778], 'ledger_rows');
      expect(answered).toBe(101);
      // the account is a condition of the index: only 311's 300 rows of the day are read
      expect(seen).toEqual({ cond: true, read: 300, thrownAway: 0 });
    });
  }, 60_000);

  it("an account's opening balance sums that account's day sums, not every account's (decision 271)", async () => {
    await withAccountingDb(async (client) => {
      // an organisation of its own with 40 accounts' sums over 400 days (folded sums, as a long
      // history leaves them: 10.00 debit, 4.00 credit and 2 lines each)
      await client.query(
        `insert into ledger_day_balances (org_id, book_id, date_posting, gl_account_number, debit, credit, lines)
         select 779, 1, date '2024-01-01' + d, (300 + a)::text, 10, 4, 2 from generate_series(0, 399) d, generate_series(0, 39) a`,
      );
      await client.query('analyze ledger_day_balances');
      const params = ['2025-01-01', '2025-01-01', '2025-01-01', '2025-01-01', ...SUMS.params([779, 1, '2025-01-31', '311', '311'])];
      // what a user reads: 366 days of 2024 before the period (6.00 each), 31 days of January in it
      expect((await client.query(positional(SUMS_SQL).text, params)).rows[0]).toEqual({ opening: '2196', debit: '310', credit: '124', lines: '62' });
      // 311's 397 days up to the period's end, none of the other 39 accounts' 15 880
      expect((await accountScan(client, SUMS_SQL, params, 'ledger_day_balances')).seen).toEqual({ cond: true, read: 397, thrownAway: 0 });
    });
  }, 60_000);
});

describe('the database guards the ledger', () => {

  it('refuses to commit an unbalanced transaction (deferred constraint trigger)', async () => {
    await withAccountingDb(async (c) => {
      await c.query('begin');
      const { rows } = await c.query(
        `insert into accounting_transactions (uid, org_id, book_id, type, source_type, source_id, date_posting, currency, legal_currency, total)
         values (gen_random_uuid(), 1, 1, 'manual', 'manual', 1, '2025-05-01', 'CZK', 'CZK', 100) returning id`,
      );
      await c.query(`insert into ledger_rows (org_id, transaction_id, book_id, ord, role, date_posting, gl_account_number, debit, credit) values (1, $1, 1, 1, 'x', '2025-05-01', '311', 100, 0)`, [rows[0].id]);
      await c.query(`insert into ledger_rows (org_id, transaction_id, book_id, ord, role, date_posting, gl_account_number, debit, credit) values (1, $1, 1, 2, 'x', '2025-05-01', '604', 0, 99.99)`, [rows[0].id]);
      await expect(c.query('commit')).rejects.toThrow(/does not balance/);
    });
    expect((await transactions('?date_posting=2025-05-01')).total).toBe(0);
  });

  it('is append-only: rows are never updated or deleted, only a header status may change', async () => {
    await withAccountingDb(async (c) => {
      await expect(c.query(`update ledger_rows set debit = debit + 1 where org_id = 1`)).rejects.toThrow(/append-only/);
      await expect(c.query(`delete from ledger_rows where org_id = 1`)).rejects.toThrow(/append-only/);
      await expect(c.query(`update accounting_transactions set total = 0 where org_id = 1`)).rejects.toThrow(/append-only/);
      await expect(c.query(`delete from accounting_transactions where org_id = 1`)).rejects.toThrow(/append-only/);
    });
  });

  it("a rebuild's set-based store refuses, storing nothing, a batch with an entry that does not balance or one already in the ledger; the guards hold outside it", async () => {
    await withAccountingDb(async (c) => {
      // an entry as the rebuild sends it, copied from a posted one under a new source id
      const payload = (sourceId: number, extraDebit: string) =>
        c.query<{ p: unknown }>(
          `select jsonb_build_array(jsonb_build_object(
              'tx', to_jsonb(t) - 'id' - 'created_at' || jsonb_build_object('uid', gen_random_uuid(), 'source_id', $1::bigint),
              'rows', (select jsonb_agg(to_jsonb(r) - 'id' - 'transaction_id' || jsonb_build_object('debit', case when r.ord = 1 then r.debit + $2::numeric else r.debit end) order by r.ord)
                         from ledger_rows r where r.transaction_id = t.id),
              'taxes', '[]'::jsonb, 'accounts', '[]'::jsonb)) as p
             from accounting_transactions t where t.org_id = 1 and t.entry_kind = 'posting' order by t.id limit 1`,
          [sourceId, extraDebit],
        );
      const count = async () => Number((await c.query(`select count(*) from accounting_transactions where org_id = 1`)).rows[0].count);
      const before = await count();
      const unbalanced = (await payload(990001, '0.01')).rows[0].p;
      await expect(c.query('select ledger_replay_entries(1, $1::jsonb)', [JSON.stringify(unbalanced)])).rejects.toMatchObject({ code: '23514' });
      const balanced = (await payload(990002, '0')).rows[0].p as Array<Record<string, any>>;
      await c.query('begin');
      expect((await c.query('select ledger_replay_entries(1, $1::jsonb) as n', [JSON.stringify(balanced)])).rows[0].n).toBe(1);
      // the same posting again (same uid and source): refused, the first one kept until the rollback
      await c.query('savepoint again');
      await expect(c.query('select ledger_replay_entries(1, $1::jsonb)', [JSON.stringify(balanced)])).rejects.toMatchObject({ code: '23505' });
      await c.query('rollback to savepoint again');
      expect(await count()).toBe(before + 1);
      // the function's rebuild mode ended with it: the guards refuse a change again
      await expect(c.query(`delete from ledger_rows where org_id = 1`)).rejects.toThrow(/append-only/);
      await c.query('rollback');
      expect(await count()).toBe(before);
    });
  });

  it("the storing functions write every column of the ledger's tables (its column lists are kept by hand)", async () => {
    await withAccountingDb(async (c) => {
      const { rows: columns } = await c.query<{ table_name: string; column_name: string }>(
        `select table_name, column_name from information_schema.columns
          where table_schema = 'public' and table_name in ('accounting_transactions', 'ledger_rows', 'ledger_tax_rows')`,
      );
      // the columns the database fills itself: ids from their sequences, stamps from their defaults
      const filledByDefault = new Set(['id', 'created_at', 'edited_at']);
      for (const fn of ['ledger_insert_entry', 'ledger_replay_entries']) {
        const [{ def }] = (await c.query<{ def: string }>(`select pg_get_functiondef('${fn}'::regproc) as def`)).rows;
        for (const table of ['accounting_transactions', 'ledger_rows', 'ledger_tax_rows']) {
          const listed = new RegExp(`insert into ${table} \\(([^)]*)\\)`).exec(def)?.[1];
          expect(listed, `${fn}: ${table}`).toBeDefined();
          const expected = columns.filter((r) => r.table_name === table && !filledByDefault.has(r.column_name)).map((r) => r.column_name);
          expect(listed!.split(',').map((s) => s.trim()).sort(), `${fn}: ${table}`).toEqual(expected.sort());
        }
      }
    });
  });

  it("keeps organisations apart: another organisation's events never show", async () => {
    await bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 1, date: '2025-06-01', lines: [{ base: 10, rate: 21 }] }), { orgId: 2 });
    await bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 77, date: '2025-06-01', lines: [{ base: 10, rate: 21 }] }));
    await entryFor('sales_invoice', 77, '2025-06-01');
    await withAccountingDb(async (c) => {
      await eventually(async () => (await c.query(`select 1 from accounting_transactions where org_id = 2`)).rowCount === 1, 2000);
    });
    const { entities } = await transactions('?date_posting=2025-06-01');
    expect(entities.map((t) => t.source.id)).toEqual([77]);
  });
});

describe('organisation profile replica', () => {
  it("posts in the organisation's legal currency from settings.organisation.updated", async () => {
    await withAccountingDb(async (c) => {
      // the bootstrap organisation announced by the settings service
      await eventually(async () => (await c.query(`select 1 from kit_organisations where org_id = 1 and legal_currency = 'CZK' and country = 'CZ'`)).rowCount === 1, 3000);
      await bus.publish(
        SUBJECTS.settingsOrganisationUpdated,
        { id: 5, name: 'Slovak s.r.o.', country: 'SK', legal_currency: 'EUR', is_vat_payer: true, peppol_id: null, bank_account: null },
        { orgId: 5, validate: false },
      );
      await eventually(async () => (await c.query(`select 1 from kit_organisations where org_id = 5`)).rowCount === 1, 3000);
      const doc = invoice({ id: 1, date: '2025-07-01', currency: 'EUR', lines: [{ base: 100, rate: 23 }], partner: { country: 'SK', vat_no: 'SK123' } });
      await bus.publish(SUBJECTS.salesInvoicePosted, { ...doc, taxes: doc.taxes.map(({ tax_base_leg, tax_amount_leg, currency_leg, ...t }) => t) }, { orgId: 5, validate: false });
      const rows = await eventually(async () => {
        const r = await c.query(`select t.legal_currency, r.gl_account_number, r.debit::text, r.credit::text from accounting_transactions t join ledger_rows r on r.transaction_id = t.id where t.org_id = 5 order by r.ord`);
        return r.rowCount ? r.rows : null;
      }, 3000);
      expect(rows).toEqual([
        { legal_currency: 'EUR', gl_account_number: '311', debit: '123.00', credit: '0.00' },
        { legal_currency: 'EUR', gl_account_number: '604', debit: '0.00', credit: '100.00' },
        { legal_currency: 'EUR', gl_account_number: '343', debit: '0.00', credit: '23.00' },
      ]);
    });
  });
});

describe('GET /v1/accounting/transactions', () => {
  it('filters by date_posting ranges, searches number and description, sorts and pages', async () => {
    const all = await transactions('?take=1000');
    expect(all.total).toBeGreaterThanOrEqual(10);
    const from = await transactions('?date_posting=[2025-03-13;]&take=1000');
    expect(from.entities.every((t) => t.date_posting >= '2025-03-13')).toBe(true);
    const to = await transactions('?date_posting=[;2025-03-11]');
    expect(to.entities.map((t) => t.no).sort()).toEqual(['CN2', 'INV1']);
    const search = await transactions('?search=inv1');
    expect(search.entities.map((t) => t.no).sort()).toEqual(['INV1', 'INV10']);
    expect((await transactions('?search=REVERSAL')).entities.map((t) => t.type)).toEqual(['reversal']);
    const desc = await transactions('?sort=-date_posting&take=2');
    expect(desc.take).toBe(2);
    expect(desc.entities).toHaveLength(2);
    expect(desc.entities[0].date_posting >= desc.entities[1].date_posting).toBe(true);
    const res = await stack.api('/v1/accounting/transactions?date_posting=[2025-13-01;]');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Array<{ path: string }> }).errors[0].path).toContain('date_posting');
    const bad = await stack.api('/v1/accounting/transactions?sort=amount');
    expect(bad.status).toBe(400);
  });
});
