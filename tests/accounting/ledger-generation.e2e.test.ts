import { describe, expect, it } from 'vitest';
import { eventually } from '../support/stack.js';
import { accountingOnly, bankTransaction, bill, creditNote, invoice, payout, SUBJECTS, vendorCredit, type Publisher } from './support.js';
import { JsonText, sqlRows, type JsonItem, type Logger } from '@ledgerline/service-kit';
import { checkLedger, rebuildLedger } from '../../apps/accounting/src/events/rebuild.js';
import { GENERATION_SCHEMA, LedgerGeneration, RebuildRunningError } from '../../apps/accounting/src/domain/ledger-generation.js';
import { fillEntryViews } from '../../apps/accounting/src/domain/entry-views.js';
import { listTransactions } from '../../apps/accounting/src/domain/transactions.js';

/** A page's entity as the client reads it (the bytes an answer writes), whether stored as text or spliced as written. */
const entityOf = (e: JsonItem): unknown => JSON.parse(String(JsonText.ofList('', [e], '').answerBody()));

/*
 * A rebuild stages the organisation's ledger as a generation apart and moves it in with one commit
 * (decision 245). What it makes must equal what a replay of every event in order makes, whatever
 * the streams hold; the ledger the API reads stays the old one until the commit; nothing is lost
 * that reaches the streams meanwhile and nothing of a generation outlives its rebuild.
 */

const file = accountingOnly();
const opts = { legalCurrency: 'CZK', orgCountry: 'CZ' };

const svc = () => file.stack.services.accounting!;
const em = () => svc().deps.orm.em.fork();

async function entries(org: number): Promise<number> {
  return (await sqlRows<{ n: number }>(em(), 'select count(*)::int as n from accounting_transactions where org_id = ?', [org]))[0].n;
}

/**
 * Every posting of the organisation as stored: each header, row and tax row whole — every column
 * but the ids and times a rebuild makes anew (which entries reverse others stays) — so a value
 * staged wrong in any column differs.
 */
async function ledgerOf(org: number): Promise<string[]> {
  const rows = await sqlRows<{ line: string }>(
    em(),
    `select (to_jsonb(t) - 'id' - 'created_at' - 'edited_at' - 'reverses_id'
             || jsonb_build_object('reverses', t.reverses_id is not null,
                  'rows', (select jsonb_agg(to_jsonb(r) - 'id' - 'transaction_id' order by r.ord) from ledger_rows r where r.transaction_id = t.id),
                  'taxes', (select coalesce(jsonb_agg(to_jsonb(x) - 'id' - 'transaction_id' - 'row_id' || jsonb_build_object('row_ord', (select r.ord from ledger_rows r where r.id = x.row_id)) order by x.ord), '[]')
                              from ledger_tax_rows x where x.transaction_id = t.id)))::text as line
       from accounting_transactions t where t.org_id = ?`,
    [org],
  );
  return rows.map((r) => r.line).sort();
}

async function generationTables(): Promise<string[]> {
  return (await sqlRows<{ name: string }>(em(), 'select tablename as name from pg_tables where schemaname = ?', [GENERATION_SCHEMA])).map((r) => r.name);
}

describe('ledger generations (decision 245)', () => {
  it('stages documents, versions, repeats, credits by id and by number, payouts and an unpostable event into the ledger a replay in order makes', async () => {
    const org = 11;
    const p = (subject: Parameters<Publisher['publish']>[0], data: unknown, extra: { validate?: boolean } = {}) => file.bus.publish(subject, data, { orgId: org, ...extra });
    // invoices 5 and 7 above the control statement's 10 000 CZK (section A.4), their credit notes below it (A.5 of their own)
    const base = (id: number) => (id === 5 || id === 7 ? 20_000 : 1000 + id);
    for (let id = 1; id <= 40; id++) await p(SUBJECTS.salesInvoicePosted, invoice({ id, date: '2025-04-02', lines: [{ base: base(id), rate: 21 }, { base: 10, rate: 12 }] }));
    // text a COPY line must escape (decision 256): tabs, line ends, backslashes, what reads as null or the end of the data
    const awkward = 'Tab\there\nnew\r\nline \\N \\. back\\slash\\ "quoted" Žluťoučký kůň 🐴';
    await p(SUBJECTS.salesInvoicePosted, invoice({ id: 42, date: '2025-04-02', no: 'INV\t42\\N', partner: { name: awkward }, lines: [{ base: 100, rate: 21 }] }));
    // the same invoice again under another event id: the ledger keeps it once
    await p(SUBJECTS.salesInvoicePosted, invoice({ id: 3, date: '2025-04-02', lines: [{ base: 1003, rate: 21 }, { base: 10, rate: 12 }] }));
    // a credit naming its invoice by number alone posts at once, found or not (decision 47): the
    // invoices are in the live ledger before the credits come, as they are in the streams' order
    await eventually(async () => (await entries(org)) === 41, 60_000);
    // credit notes of earlier invoices, by id and by number only, and of an invoice no event posts
    await p(SUBJECTS.salesCreditNotePosted, creditNote({ id: 501, date: '2025-04-20', lines: [{ base: -100, rate: 21 }], credited_doc_id: 5 }));
    await p(SUBJECTS.salesCreditNotePosted, creditNote({ id: 502, date: '2025-04-20', lines: [{ base: -50, rate: 21 }], credited_doc_no: 'INV7' }));
    await p(SUBJECTS.salesCreditNotePosted, creditNote({ id: 503, date: '2025-04-20', lines: [{ base: -5, rate: 21 }], credited_doc_id: 99_999 }));
    // an invoice that cannot balance
    await p(SUBJECTS.salesInvoicePosted, { ...invoice({ id: 41, date: '2025-04-03', lines: [{ base: 10, rate: 21 }] }), total_amount_leg: 1 }, { validate: false });
    // payments of invoices; the fifth paid again in a second version
    for (let id = 1; id <= 10; id++) await p(SUBJECTS.financeBankTransactionRecorded, bankTransaction({ id, amount: 1220 + id, date: '2025-04-25', paid: { type: 'sales_invoice', id } }));
    await p(SUBJECTS.financeBankTransactionRecorded, bankTransaction({ id: 11, amount: 121, date: '2025-04-25', paid: { type: 'sales_invoice', id: 42 }, description: `\\.\n${awkward}\t\\` }));
    await p(SUBJECTS.financeBankTransactionRecorded, { ...bankTransaction({ id: 5, amount: 1225, date: '2025-04-26', paid: { type: 'sales_invoice', id: 5 } }), version: 2 });
    // a payout in three versions, and its first version again after the third (stale)
    for (const version of [1, 2, 3, 1]) {
      await p(SUBJECTS.financePayoutPosted, payout({ id: 7, version, date: '2025-04-30', lines: [{ amount: 100 + version, paid: { type: 'sales_invoice', id: 7 } }, { amount: -version, gl_account: '568' }] }));
    }
    // bills and a vendor credit of the first
    for (let id = 1; id <= 5; id++) await p(SUBJECTS.purchaseBillPosted, bill({ id, date: '2025-04-10', lines: [{ base: 200 * id, rate: 21 }] }));
    await p(SUBJECTS.purchaseVendorCreditPosted, vendorCredit({ id: 601, date: '2025-04-15', lines: [{ base: -20, rate: 21 }], credited_doc_id: 1 }));
    // invoices 41, credit notes 3, payments 11 + the fifth's reversal and second version,
    // the payout's three postings and two reversals, bills 5, vendor credit 1
    const expected = 41 + 3 + 13 + 5 + 5 + 1;
    await eventually(async () => (await entries(org)) === expected, 60_000);
    const live = await ledgerOf(org);

    const generation = await checkLedger(svc().deps.orm, svc().deps.bus, org, opts);
    expect(generation).toMatchObject({ method: 'generation', transactions: expected, rebuilt: expected, missing: [], extra: [], changed: [] });
    expect(generation.unpostable.map((u) => u.reason)).toEqual([expect.stringMatching(/does not balance/)]);

    const inOrder = await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts, { method: 'in_order' });
    expect(inOrder).toMatchObject({ method: 'in_order', transactions: expected, stageSeconds: 0, staged: 0 });
    const replayed = await ledgerOf(org);
    const staged = await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts);
    // every document's first posting as staged (invoices 41, payments 11, the payout, bills 5), none
    // handed to the ledger's own path by a batch the database refused to stage; the rest in order
    expect(staged).toMatchObject({ method: 'generation', draftThreads: 0, events: inOrder.events, transactions: expected, staged: 41 + 11 + 1 + 5 });
    // the ledger replayed in order held every staged posting as staged but two the tail changes
    // after it (the fifth payment's and the payout's first versions, reversed by their later
    // ones): kept (decision 264); those two made again and reversed again
    expect(staged.kept).toBe(56);
    // uids, statuses, which entries reverse, every row and tax row: the same every way
    expect(await ledgerOf(org)).toEqual(replayed);
    expect(replayed).toEqual(live);
    // drafted by threads when asked (by default the rebuild's own thread drafts): its one batch by the first of two
    const threaded = await checkLedger(svc().deps.orm, svc().deps.bus, org, opts, { draftThreads: 2 });
    expect(threaded).toMatchObject({ method: 'generation', rebuilt: expected, missing: [], extra: [], changed: [] });
    expect(threaded.unpostable).toEqual(generation.unpostable);
    expect(await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts, { draftThreads: 2 })).toMatchObject({ method: 'generation', draftThreads: 1, events: inOrder.events, transactions: expected, staged: 58 });
    expect(await ledgerOf(org)).toEqual(replayed);
    // a rebuild stores rows, not views (decision 260): only what its tail posted one by one has one;
    // the views written afterwards answer the page exactly as the rows did
    const views = async () => (await sqlRows<{ n: number }>(em(), 'select count(*)::int as n from ledger_entry_views where org_id = ?', [org]))[0].n;
    const withViews = await views();
    expect(withViews).toBeLessThanOrEqual(expected - 58);
    const page = async () => listTransactions({ em: em(), orgId: org }, { sort: [{ field: 'date_posting', direction: 'asc' }], from: 0, take: 200 }, 'cs-CZ');
    const fromRows = await page();
    expect(fromRows.entities).toHaveLength(expected);
    expect(await fillEntryViews(svc().deps.orm, org, 7)).toBe(expected - withViews);
    expect(await views()).toBe(expected);
    expect(await fillEntryViews(svc().deps.orm, org, 7)).toBe(0);
    expect((await page()).entities.map(entityOf)).toEqual(fromRows.entities.map(entityOf));
    // the credit notes report in the control statement where their invoices did; the one of no invoice under its own section
    const sections = await sqlRows<{ id: string; cs: string | null }>(
      em(),
      `select t.source_id::text as id, min(x.tax_control_statement) as cs from accounting_transactions t join ledger_tax_rows x on x.transaction_id = t.id
        where t.org_id = ? and t.source_type in ('sales_credit_note', 'sales_invoice') and t.source_id in (5, 7, 501, 502, 503) group by 1 order by 1`,
      [org],
    );
    const cs = Object.fromEntries(sections.map((s) => [s.id, s.cs]));
    expect(cs).toEqual({ '5': 'A.4', '7': 'A.4', '501': 'A.4', '502': 'A.4', '503': 'A.5' });
    expect(await generationTables()).toEqual([]);
  }, 120_000);

  it('keeps what the old ledger holds as staged, ids and views too, and replaces a posting that differs in any column of a row or a tax row', async () => {
    const org = 19;
    for (let id = 1; id <= 6; id++) await file.bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id, date: '2025-05-02', lines: [{ base: 100 * id, rate: 21 }] }), { orgId: org });
    await file.bus.publish(SUBJECTS.salesCreditNotePosted, creditNote({ id: 701, date: '2025-05-20', lines: [{ base: -10, rate: 21 }], credited_doc_id: 2 }), { orgId: org });
    await eventually(async () => (await entries(org)) === 7, 30_000);
    const live = await ledgerOf(org);
    const idsOf = async () => Object.fromEntries((await sqlRows<{ k: string; id: string }>(em(), `select source_type || ':' || source_id as k, id::text as id from accounting_transactions where org_id = ?`, [org])).map((r) => [r.k, r.id]));
    const before = await idsOf();
    await fillEntryViews(svc().deps.orm, org);
    // the old ledger wrong in one row's description (invoice 3) and one tax row's base (invoice 5), as a changed rule would leave it
    const tamper = async (sql: string, source: number) =>
      em().transactional(async (tem) => {
        await sqlRows(tem, `select set_config('ledger.rebuild', 'on', true)`);
        await sqlRows(tem, sql, [org, source]);
      });
    await tamper(`update ledger_rows set description = 'wrong' where ord = 1 and transaction_id = (select id from accounting_transactions where org_id = ? and source_type = 'sales_invoice' and source_id = ?)`, 3);
    await tamper(`update ledger_tax_rows set tax_base_out = tax_base_out + 1 where transaction_id = (select id from accounting_transactions where org_id = ? and source_type = 'sales_invoice' and source_id = ?)`, 5);
    expect(await ledgerOf(org)).not.toEqual(live);
    const result = await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts);
    // six invoices staged, four kept; the credit note is the tail's, made again after the switch
    expect(result).toMatchObject({ method: 'generation', staged: 6, kept: 4, transactions: 7 });
    expect(await ledgerOf(org)).toEqual(live);
    const after = await idsOf();
    for (const k of ['sales_invoice:1', 'sales_invoice:2', 'sales_invoice:4', 'sales_invoice:6']) expect(after[k]).toBe(before[k]);
    for (const k of ['sales_invoice:3', 'sales_invoice:5', 'sales_credit_note:701']) expect(Number(after[k])).toBeGreaterThan(Math.max(...Object.values(before).map(Number)));
    // the kept postings' stored views stay; the replaced ones' went with them
    const viewed = await sqlRows<{ id: string }>(em(), 'select transaction_id::text as id from ledger_entry_views where org_id = ? order by 1', [org]);
    expect(viewed.map((v) => v.id).sort()).toEqual(['sales_invoice:1', 'sales_invoice:2', 'sales_invoice:4', 'sales_invoice:6'].map((k) => after[k]).sort());
    // a second rebuild over the rebuilt ledger keeps all six
    expect(await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts)).toMatchObject({ staged: 6, kept: 6, transactions: 7 });
    expect(await ledgerOf(org)).toEqual(live);
  }, 60_000);

  it('replays in order when a credit names a document that comes after it in the streams, and makes what the live ledger made', async () => {
    const org = 12;
    await file.bus.publish(SUBJECTS.salesCreditNotePosted, creditNote({ id: 801, date: '2025-05-02', lines: [{ base: -10, rate: 21 }], credited_doc_id: 1 }), { orgId: org });
    // the live consumer awaits the credited invoice a few tries, then posts the credit without it
    await eventually(async () => (await entries(org)) === 1, 30_000);
    await file.bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 1, date: '2025-05-01', lines: [{ base: 100, rate: 21 }] }), { orgId: org });
    await eventually(async () => (await entries(org)) === 2, 30_000);
    const live = await ledgerOf(org);
    const result = await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts);
    expect(result).toMatchObject({ method: 'in_order', events: 2, transactions: 2 });
    expect(await ledgerOf(org)).toEqual(live);
    expect(await generationTables()).toEqual([]);
  }, 60_000);

  it('keeps the old ledger readable, entry for entry, while the generation is staged, and takes in what reached the streams meanwhile', async () => {
    const org = 13;
    for (let id = 1; id <= 30; id++) await file.bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id, date: '2025-06-01', lines: [{ base: 100, rate: 21 }] }), { orgId: org });
    await eventually(async () => (await entries(org)) === 30, 30_000);
    const uidsOf = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { uid: string }).uid).sort();
    const uidsBefore = uidsOf(await ledgerOf(org));
    expect(uidsBefore).toHaveLength(30);
    const result = await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts, {
      onStaged: async () => {
        // staged, not yet moved: the ledger is the old one, entry for entry
        expect(uidsOf(await ledgerOf(org))).toEqual(uidsBefore);
        // an invoice posted now, live, after the streams were read for the generation
        await file.bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 31, date: '2025-06-02', lines: [{ base: 300, rate: 21 }] }), { orgId: org });
        await eventually(async () => (await entries(org)) === 31, 30_000);
      },
    });
    expect(result).toMatchObject({ method: 'generation', events: 31, transactions: 31 });
    const after = await ledgerOf(org);
    expect(after.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ source_type: 'sales_invoice', source_id: 31, source_version: 1, entry_kind: 'posting', accounting_status: 'posted' }),
    );
    expect(after).toHaveLength(31);
  }, 60_000);

  it('refuses a second rebuild of the organisation while one runs; another organisation rebuilds meanwhile', async () => {
    const org = 14;
    await file.bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 1, date: '2025-06-01', lines: [{ base: 100, rate: 21 }] }), { orgId: org });
    await eventually(async () => (await entries(org)) === 1, 30_000);
    let second: unknown = null;
    let other: unknown = null;
    await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts, {
      onStaged: async () => {
        second = await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts).catch((err) => err);
        other = await rebuildLedger(svc().deps.orm, svc().deps.bus, 12, opts).catch((err) => err);
      },
    });
    expect(second).toBeInstanceOf(RebuildRunningError);
    expect(String(second)).toMatch(/a rebuild of organisation 14's ledger is running/);
    expect(other).toMatchObject({ orgId: 12, transactions: 2 });
    // the lock went with the rebuild
    expect(await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts)).toMatchObject({ method: 'generation', transactions: 1 });
  }, 60_000);

  it('leaves the ledger as it was when the rebuild fails after staging, and the next rebuild clears what a dead one left', async () => {
    const org = 15;
    for (let id = 1; id <= 3; id++) await file.bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id, date: '2025-06-01', lines: [{ base: 100, rate: 21 }] }), { orgId: org });
    await eventually(async () => (await entries(org)) === 3, 30_000);
    const before = await sqlRows<{ id: string }>(em(), 'select id::text from accounting_transactions where org_id = ? order by id', [org]);
    await expect(
      rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts, {
        onStaged: async () => {
          throw new Error('the operator stopped it');
        },
      }),
    ).rejects.toThrow('the operator stopped it');
    // the same rows (ids too): nothing was deleted or moved
    expect(await sqlRows<{ id: string }>(em(), 'select id::text from accounting_transactions where org_id = ? order by id', [org])).toEqual(before);
    expect(await generationTables()).toEqual([]);
    // a rebuild whose process died leaves its tables; the organisation's next rebuild drops them
    await sqlRows(em(), `create table ${GENERATION_SCHEMA}.g${org}_000000000000_tx (id bigint)`);
    await sqlRows(em(), `create table ${GENERATION_SCHEMA}.g150_000000000000_tx (id bigint)`);
    expect(await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts)).toMatchObject({ method: 'generation', transactions: 3 });
    // another organisation's (150, not 15) is not this one's to drop
    expect(await generationTables()).toEqual(['g150_000000000000_tx']);
    await sqlRows(em(), `drop table ${GENERATION_SCHEMA}.g150_000000000000_tx`);
  }, 60_000);

  it('refuses to switch when the staged rows are gone (unlogged: a promoted standby has the tables empty), and the ledger stays as it was', async () => {
    const org = 17;
    for (let id = 1; id <= 4; id++) await file.bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id, date: '2025-06-01', lines: [{ base: 100, rate: 21 }] }), { orgId: org });
    // a repeat: left to the tail
    await file.bus.publish(SUBJECTS.salesInvoicePosted, invoice({ id: 4, date: '2025-06-01', lines: [{ base: 100, rate: 21 }] }), { orgId: org });
    await eventually(async () => (await entries(org)) === 4, 30_000);
    const before = await sqlRows<{ id: string }>(em(), 'select id::text from accounting_transactions where org_id = ? order by id', [org]);
    const emptied = (table: 'tx' | 'tail') =>
      rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts, {
        onStaged: async () => {
          const [t] = await sqlRows<{ name: string }>(em(), `select tablename as name from pg_tables where schemaname = ? and tablename like ?`, [GENERATION_SCHEMA, `g${org}\\_%\\_${table}`]);
          await sqlRows(em(), `truncate ${GENERATION_SCHEMA}."${t.name}"`);
        },
      });
    await expect(emptied('tx')).rejects.toThrow(/4 postings were staged, 0 found to move; the ledger is unchanged/);
    await expect(emptied('tail')).rejects.toThrow(/1 events were left to replay in order, 0 found; the ledger is unchanged/);
    expect(await sqlRows<{ id: string }>(em(), 'select id::text from accounting_transactions where org_id = ? order by id', [org])).toEqual(before);
    expect(await generationTables()).toEqual([]);
  }, 60_000);

  it('skips an event the database refuses to stage (a NUL in a name) and stages the rest of its batch', async () => {
    const org = 16;
    for (let id = 1; id <= 20; id++) {
      const doc = invoice({ id, date: '2025-06-01', lines: [{ base: 100 + id, rate: 21 }] });
      if (id === 10) doc.customer = { ...doc.customer, business_name: 'Nul\u0000 s.r.o.' };
      await file.bus.publish(SUBJECTS.salesInvoicePosted, doc, { orgId: org, validate: false });
    }
    // the live consumer cannot store it either; it takes the others
    await eventually(async () => (await entries(org)) === 19, 30_000);
    const inOrder = await checkLedger(svc().deps.orm, svc().deps.bus, org, opts, { method: 'in_order' });
    const staged = await checkLedger(svc().deps.orm, svc().deps.bus, org, opts);
    expect(staged).toMatchObject({ method: 'generation', events: 20, rebuilt: 19, missing: [], extra: [], changed: [] });
    expect(staged.unpostable.map((u) => u.eventId)).toEqual(inOrder.unpostable.map((u) => u.eventId));
    expect(staged.unpostable).toHaveLength(1);
    // the rebuild says so: its one batch refused and replayed after the move, nothing staged
    const warned: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
    const log: Logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (msg, fields) => void warned.push({ msg, fields }), child: () => log };
    expect(await rebuildLedger(svc().deps.orm, svc().deps.bus, org, opts, { log })).toMatchObject({ method: 'generation', events: 20, transactions: 19, staged: 0 });
    expect(warned).toContainEqual({
      msg: "rebuild: the database refused a staged batch; its postings take the ledger's own path after the move",
      fields: { org_id: org, postings: 20, err: expect.stringMatching(/unsupported Unicode escape sequence/) },
    });
  }, 60_000);
  it('finds a staged posting that does not balance, and leaves nothing behind when closed while the staged side is being digested (decision 275)', async () => {
    const org = 18;
    const generation = await LedgerGeneration.open(svc().deps.orm, org);
    try {
      const { tx, rows } = generation.columns;
      // COPY lines of a header and its rows: every column null (\N) but those named; the staged tables take them unchecked
      const line = (columns: string[], values: Record<string, string>, ends: string[]) => [...columns.map((c) => values[c] ?? '\\N'), ...ends].join('\t') + '\n';
      const header = (uid: string, seq: number) => line(tx, { uid, book_id: '1', no: `FV-${seq}` }, [String(org), String(seq)]);
      const row = (uid: string, ord: number, debit: string, credit: string) =>
        line(rows, { book_id: '1', ord: String(ord), role: 'x', date_posting: '2025-06-01', gl_account_number: '311', debit, credit }, [String(org), uid]);
      const [a, b, c] = ['0000aaaa-0000-4000-8000-000000000001', '0000aaaa-0000-4000-8000-000000000002', '0000aaaa-0000-4000-8000-000000000003'];
      // two postings in one batch, their rows interleaved; a third in a batch of its own
      await generation.stage(header(a, 1) + header(b, 2), row(a, 1, '100.00', '0') + row(b, 1, '50', '0') + row(a, 2, '0', '100.00') + row(b, 2, '0', '49.99'), '');
      await generation.stage(header(c, 3), row(c, 1, '7.5', '0') + row(c, 2, '0', '7.50'), '');
      expect(await generation.unbalanced()).toEqual({ id: b, debit: '50.00', credit: '49.99' });
      generation.digestStaged();
    } finally {
      await generation.close();
    }
    // the digests' table too, though it was being made when the generation closed
    expect(await generationTables()).toEqual([]);
  }, 60_000);
});
