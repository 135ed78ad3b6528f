import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/*
 * A large organisation built in minutes: documents posted through the API once each, then copied
 * by set-based SQL inside the services' own schemas (a million POSTs would take hours and measure
 * the write path, which other figures measure). Every copy is a row the services themselves
 * wrote, with its own id, number, day and customer; the ledger's copies keep their template's
 * rows, tax rows and balance, so every report reads what posting would have written.
 */

/** The columns of a table, in order, from the database (the copies name every one). */
async function columnsOf(db: pg.Client, table: string): Promise<string[]> {
  const r = await db.query('select column_name from information_schema.columns where table_name = $1 and table_schema = current_schema() order by ordinal_position', [table]);
  return r.rows.map((x: { column_name: string }) => x.column_name);
}

/** `insert … select` of every column of `table` but `omit` (their defaults), the ones in `set` computed, the rest copied from `t`. */
async function copySql(db: pg.Client, table: string, set: Record<string, string>, from: string, omit: string[] = []): Promise<string> {
  const cols = (await columnsOf(db, table)).filter((c) => !omit.includes(c));
  for (const k of Object.keys(set)) if (!cols.includes(k)) delete set[k];
  return `insert into ${table} (${cols.map((c) => `"${c}"`).join(', ')}) select ${cols.map((c) => set[c] ?? `t."${c}"`).join(', ')} ${from}`;
}

async function nextId(db: pg.Client, table: string): Promise<number> {
  return Number((await db.query(`select coalesce(max(id), 0) + 1 as n from ${table}`)).rows[0].n);
}

async function resetSequence(db: pg.Client, table: string): Promise<void> {
  await db.query(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`);
}

/** The day of copy `g` of `count`, spread evenly over `days` days from `first` (ids rise with days). */
const dayOf = (first: string, days: number, count: number) => `(date '${first}' + ((g - 1)::bigint * ${days} / ${count})::int)`;

export interface ScaleShape {
  orgId: number;
  invoices: number;
  /** First day and number of days the documents are spread over. */
  first: string;
  days: number;
  customers: number;
}

/** The fields of a document's view that change after posting, which its stored body holds last (decision 266). */
const OVERLAY = ['amount_paid', 'amount_due', 'payment_status', 'edited_at', 'overdue_days'];
const OVERLAY_KEYS = OVERLAY.map((k) => `'${k}'`).join(' - ');
const OVERLAY_TAIL = OVERLAY.map((k) => `', "${k}": ' || (t.body::jsonb -> '${k}')::text`).join(' || ') + ` || '}'`;

/**
 * `shape.invoices` copies of the template invoice in sales: numbers `SC00000001…`, customers
 * `1000 + g % customers`, days spread over the period. Answers the first copy's id.
 */
export async function copyInvoices(db: pg.Client, templateId: number, shape: ScaleShape): Promise<number> {
  const base = await nextId(db, 'sales_documents');
  const n = shape.invoices;
  const day = dayOf(shape.first, shape.days, n);
  const no = `'SC' || lpad(g::text, 8, '0')`;
  const customer = `(1000 + g % ${shape.customers})`;
  const sql = await copySql(
    db,
    'sales_documents',
    {
      id: `${base - 1} + g`,
      uid: 'gen_random_uuid()',
      no,
      customer_id: customer,
      customer_name: `'Scale customer ' || ${customer}`,
      date_issued: day,
      date_taxable: day,
      date_due: `${day} + 14`,
      payment_reference: `lpad(g::text, 8, '0')`,
      created_at: 'now()',
      updated_at: 'now()',
      // the template's body with the copy's own fields, the view's overlay last as posting stores
      // it (decision 266); jsonb orders the other keys its own way and writes spaces, as JSON may
      body: `(left(((t.body::jsonb - ${OVERLAY_KEYS}) || jsonb_build_object('id', ${base - 1} + g, 'no', ${no}, 'date_issued', ${day}, 'date_taxable', ${day}, 'date_due', ${day} + 14,
                'customer', (t.body::jsonb -> 'customer') || jsonb_build_object('id', ${customer}, 'business_name', 'Scale customer ' || ${customer})))::text, -1)
              || ${OVERLAY_TAIL})::json`,
    },
    `from sales_documents t, generate_series(1, ${n}) g where t.id = ${templateId} and t.org_id = ${shape.orgId}`,
  );
  await db.query(sql);
  await resetSequence(db, 'sales_documents');
  return base;
}

/**
 * `count` copies of one posted accounting transaction with its ledger rows, tax rows and stored
 * view (decision 260): ids given here (the rows' and tax rows' links kept), days spread over the
 * period, numbers and source ids from `no` and `sourceId` (SQL of `g`). Answers the number of
 * ledger rows written.
 */
export async function copyTransaction(
  db: pg.Client,
  templateId: number,
  count: number,
  shape: ScaleShape,
  no: string,
  sourceId: string,
): Promise<number> {
  const day = dayOf(shape.first, shape.days, count);
  const txBase = await nextId(db, 'accounting_transactions');
  const rowBase = await nextId(db, 'ledger_rows');
  const taxBase = await nextId(db, 'ledger_tax_rows');
  const idsOf = async (table: string) =>
    (await db.query(`select id from ${table} where transaction_id = $1 order by id`, [templateId])).rows.map((r: { id: string }) => Number(r.id));
  const rows = await idsOf('ledger_rows');
  const taxRows = await idsOf('ledger_tax_rows');
  const k = rows.length;
  const kt = taxRows.length;
  // the template rows' places, so a copy's tax row points at its own copy of its row
  const place = `(array[${rows.join(',')}]::bigint[])`;
  const taxPlace = `(array[${taxRows.join(',') || 'null'}]::bigint[])`;
  const rowId = (templateRowId: string) => `${rowBase - 1}::bigint + (g - 1)::bigint * ${k} + array_position(${place}, ${templateRowId})`;
  const taxId = (templateTaxId: string) => `${taxBase - 1}::bigint + (g - 1)::bigint * ${kt} + array_position(${taxPlace}, ${templateTaxId})`;
  const view = await viewCopySql(db, templateId, {
    tx: 'c.id::text',
    uid: 'to_json(c.uid)::text',
    created: `to_json(to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text`,
    no: `coalesce(to_json(c.no)::text, 'null')`,
    day: 'to_json(c.date_posting)::text',
    source: 'c.source_id::text',
    // the same ids the rows' and tax rows' copies get, by the same expressions
    row: (i) => `(${rowId(String(rows[i]))})::text`,
    tax: (i) => `(${taxId(String(taxRows[i]))})::text`,
  }, rows, taxRows);
  await db.query('set session_replication_role = replica'); // the balance trigger: every copy balances as its template does
  try {
    await db.query(
      await copySql(
        db,
        'accounting_transactions',
        { id: `${txBase - 1} + g`, uid: 'gen_random_uuid()', no, source_id: sourceId, date_posting: day, created_at: 'now()' },
        `from accounting_transactions t, generate_series(1, ${count}) g where t.id = ${templateId}`,
      ),
    );
    await db.query(
      await copySql(
        db,
        'ledger_rows',
        { id: rowId('t.id'), transaction_id: `${txBase - 1} + g`, date_posting: day },
        `from ledger_rows t, generate_series(1, ${count}) g where t.transaction_id = ${templateId}`,
      ),
    );
    await db.query(
      await copySql(
        db,
        'ledger_tax_rows',
        { id: taxId('t.id'), row_id: rowId('t.row_id'), transaction_id: `${txBase - 1} + g` },
        `from ledger_tax_rows t, generate_series(1, ${count}) g where t.transaction_id = ${templateId}`,
      ),
    );
    await db.query(
      `insert into ledger_entry_views (transaction_id, org_id, view)
         select c.id, c.org_id, ${view.sql} from generate_series(1, ${count}) g join accounting_transactions c on c.id = ${txBase - 1} + g`,
      view.params,
    );
  } finally {
    await db.query('set session_replication_role = origin');
  }
  for (const t of ['accounting_transactions', 'ledger_rows', 'ledger_tax_rows']) await resetSequence(db, t);
  return count * k;
}

/** SQL of `g` and of the copied header `c` giving each value of an entry's view that a copy changes. */
interface ViewValuesSql {
  tx: string;
  uid: string;
  created: string;
  no: string;
  day: string;
  source: string;
  /** The copy of the template's i-th row (by id). */
  row: (i: number) => string;
  /** The copy of the template's i-th tax row (by id). */
  tax: (i: number) => string;
}

/**
 * The template entry's stored view (decision 260) as SQL writing a copy's: the text kept as it is
 * stored, marks included, but for the values a copy changes — its id, uid, creation time, number,
 * day, source id and its rows' and tax rows' ids — which come from `values`. The text's constant
 * parts are parameters. Where the view holds them is read from the view itself (the bench imports
 * no app code), and the bench compares a copy's answer with the same entry built from its rows
 * (`copiedViewsAnswerAsBuilt`), so a view that changes shape is found, not measured.
 */
async function viewCopySql(db: pg.Client, templateId: number, values: ViewValuesSql, rows: number[], taxRows: number[]): Promise<{ sql: string; params: string[] }> {
  const found = await db.query('select view from ledger_entry_views where transaction_id = $1', [templateId]);
  if (found.rows.length === 0) throw new Error(`the template entry ${templateId} has no stored view`);
  const nonce = randomUUID();
  // a mark (decision 260) is a slot between two U+0001, raw in the text: made a JSON string to parse
  const MARK = '\u0001';
  const text = (found.rows[0].view as string).replace(/\u0001([^\u0001"\\]*)\u0001/g, (_, s: string) => `"${nonce}M${s}"`);
  const v = JSON.parse(text);
  const slot = (name: string) => `${nonce}P${name}`;
  const rowSlot = (id: number) => {
    const i = rows.indexOf(Number(id));
    if (i < 0) throw new Error(`the template's view names a row ${id} it does not have`);
    return slot(`row${i}`);
  };
  v.id = slot('tx');
  v.uid = slot('uid');
  v.created_at = slot('created');
  v.no = slot('no');
  v.date_posting = slot('day');
  v.source.id = slot('source');
  for (const r of v.rows) {
    r.id = rowSlot(r.id);
    r.date_posting = slot('day');
    for (const t of r.taxes) {
      const i = taxRows.indexOf(Number(t.id));
      if (i < 0) throw new Error(`the template's view names a tax row ${t.id} it does not have`);
      t.id = slot(`tax${i}`);
    }
  }
  for (const r of [...v.act_rows, ...v.taxes]) r.id = rowSlot(r.id);
  const copied = JSON.stringify(v).replace(new RegExp(`"${nonce}M([^"]*)"`, 'g'), (_, s: string) => MARK + s + MARK);
  // the text between the slots as parameters, each slot's value as SQL
  const parts = copied.split(new RegExp(`"${nonce}P([a-z0-9]+)"`));
  const params: string[] = [];
  const sql: string[] = [];
  parts.forEach((part, i) => {
    if (i % 2 === 0) {
      params.push(part);
      sql.push(`$${params.length}::text`);
    } else {
      const m = /^(row|tax)(\d+)$/.exec(part);
      sql.push(m ? values[m[1] as 'row' | 'tax'](Number(m[2])) : values[part as Exclude<keyof ViewValuesSql, 'row' | 'tax'>]);
    }
  });
  return { sql: sql.join(' || '), params };
}
