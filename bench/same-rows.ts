import pg from 'pg';

/*
 * "The same rows by plain pg" (issue 79, part 2): what a document costs is read beside what
 * writing its rows costs with nothing of ours in between, on the same hour. The rows are counted,
 * not assumed: each database's cumulative per-table counts before and after the documents
 * (`pg_stat_user_tables`), so the reader sees which rows a document makes; the ceiling then writes
 * copies of the rows the last document made, by hand-written statements from a plain pool.
 */

/** Rows written so far per table of one database, `table` → counts. */
export type TableWrites = Map<string, { inserted: number; updated: number; deleted: number }>;

export async function tableWrites(url: string): Promise<TableWrites> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ relname: string; ins: string; upd: string; del: string }>(
      'select relname, n_tup_ins as ins, n_tup_upd as upd, n_tup_del as del from pg_stat_user_tables',
    );
    return new Map(rows.map((r) => [r.relname, { inserted: Number(r.ins), updated: Number(r.upd), deleted: Number(r.del) }]));
  } finally {
    await c.end();
  }
}

/** The rows written per document between two readings, largest first: `sales_documents 1, kit_audit_events 1 (+1 updated)`. */
export function writesPerDocument(before: TableWrites, after: TableWrites, documents: number): string {
  const per = (n: number) => Math.round((n / Math.max(1, documents)) * 10) / 10;
  return [...after]
    .map(([table, a]) => {
      const b = before.get(table) ?? { inserted: 0, updated: 0, deleted: 0 };
      return { table, inserted: per(a.inserted - b.inserted), updated: per(a.updated - b.updated), deleted: per(a.deleted - b.deleted) };
    })
    .filter((t) => t.inserted || t.updated || t.deleted)
    .sort((x, y) => y.inserted - x.inserted || y.updated - x.updated)
    .map((t) => `${t.table} ${t.inserted}${t.updated ? ` (+${t.updated} updated)` : ''}${t.deleted ? ` (−${t.deleted} deleted)` : ''}`)
    .join(', ');
}

/** Columns of a table a copy writes: all but its serial id. */
async function columnsOf(pool: pg.Pool, table: string): Promise<string[]> {
  const { rows } = await pool.query<{ column_name: string }>(
    `select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1 and column_name <> 'id' order by ordinal_position`,
    [table],
  );
  if (!rows.length) throw new Error(`no table ${table}`);
  return rows.map((r) => r.column_name);
}

/** `insert into t (cols) select <cols, some replaced> from t`: a copy of stored rows, with the columns that must differ given. */
function copyOf(table: string, columns: string[], replaced: Record<string, string>, where: string, returning = ''): string {
  const list = columns.map((c) => `"${c}"`).join(', ');
  const values = columns.map((c) => replaced[c] ?? `"${c}"`).join(', ');
  return `insert into ${table} (${list}) select ${values} from ${table} t where ${where}${returning ? ` returning ${returning}` : ''}`;
}

/**
 * Copies of the rows a sales document and its ledger entry made, one document per call, each
 * database's rows in one transaction as the services write them: in sales the number series
 * counter, the document with its stored body, its audit record and its outbox event; in
 * accounting the event's inbox row, the entry, its rows and tax rows (the day sums follow by the
 * ledger's own triggers, as they do for the service) and its outbox event.
 */
export class PlainRowWriter {
  private n = 0;

  private constructor(
    private readonly sales: pg.Pool,
    private readonly accounting: pg.Pool,
    private readonly sql: { counter: string; document: string; audit: string; salesOutbox: string; inbox: string; entry: string; rows: string; taxRows: string; ledgerOutbox: string },
    private readonly sample: {
      counterId: string;
      documentId: string;
      auditId: string;
      salesOutboxId: string;
      entryId: string;
      /** The entry's rows' ids in their order, which its tax rows name. */
      entryRowIds: string[];
      ledgerOutboxId: string;
      inboxConsumer: string;
      inboxSubject: string;
    },
  ) {}

  /** From the last document of `docType` and what it made, in databases the pools reach. */
  static async of(sales: pg.Pool, accounting: pg.Pool, docType: string): Promise<PlainRowWriter> {
    const doc = (await sales.query(`select id, counter_id from sales_documents where doc_type = $1 order by id desc limit 1`, [docType])).rows[0];
    if (!doc) throw new Error(`no ${docType} to copy`);
    const audit = (await sales.query(`select id from kit_audit_events where resource_id = $1 order by id desc limit 1`, [String(doc.id)])).rows[0];
    const salesOutbox = (await sales.query(`select id from kit_outbox order by id desc limit 1`)).rows[0];
    const entry = (await accounting.query(`select id from accounting_transactions where source_id = $1 order by id desc limit 1`, [doc.id])).rows[0];
    const ledgerOutbox = (await accounting.query(`select id from kit_outbox order by id desc limit 1`)).rows[0];
    const inbox = (await accounting.query(`select consumer, subject from kit_inbox order by processed_at desc limit 1`)).rows[0];
    if (!audit || !entry || !salesOutbox || !ledgerOutbox || !inbox) throw new Error(`the last ${docType} left no audit record, ledger entry, outbox events or inbox row to copy`);
    const entryRows = await accounting.query<{ id: string }>('select id from ledger_rows where transaction_id = $1 order by ord', [entry.id]);
    const columns = {
      document: await columnsOf(sales, 'sales_documents'),
      audit: await columnsOf(sales, 'kit_audit_events'),
      salesOutbox: await columnsOf(sales, 'kit_outbox'),
      entry: await columnsOf(accounting, 'accounting_transactions'),
      rows: await columnsOf(accounting, 'ledger_rows'),
      taxRows: await columnsOf(accounting, 'ledger_tax_rows'),
      ledgerOutbox: await columnsOf(accounting, 'kit_outbox'),
    };
    // an outbox row copied as sent: the relays publish none of them
    const outbox = { event_id: 'gen_random_uuid()', sent_at: 'now()', created_at: 'now()' };
    return new PlainRowWriter(
      sales,
      accounting,
      {
        counter: `insert into number_series_counters (series_id, period_key, last_value) values ($1, 'bench', 1)
          on conflict (series_id, period_key) do update set last_value = number_series_counters.last_value + 1 returning last_value`,
        document: copyOf('sales_documents', columns.document, { uid: 'gen_random_uuid()', no: '$2', created_at: 'now()', updated_at: 'now()' }, 't.id = $1', 'id'),
        audit: copyOf('kit_audit_events', columns.audit, { resource_id: '$2', recorded_at: 'now()', seq: 'null', prev_hash: 'null', hash: 'null' }, 't.id = $1'),
        salesOutbox: copyOf('kit_outbox', columns.salesOutbox, outbox, 't.id = $1'),
        inbox: `insert into kit_inbox (consumer, event_id, subject) values ($1, gen_random_uuid()::text, $2)`,
        entry: copyOf('accounting_transactions', columns.entry, { uid: 'gen_random_uuid()', source_id: '$2', created_at: 'now()' }, 't.id = $1', 'id'),
        rows: copyOf('ledger_rows', columns.rows, { transaction_id: '$2' }, 't.transaction_id = $1 order by t.ord', 'id, ord'),
        // each tax row on the copy of its row: the old row ids and the new ones, in the same order
        taxRows: copyOf(
          'ledger_tax_rows',
          columns.taxRows,
          { transaction_id: '$2', row_id: '(select m.n from unnest($3::bigint[], $4::bigint[]) as m(o, n) where m.o = t.row_id)' },
          't.transaction_id = $1',
        ),
        ledgerOutbox: copyOf('kit_outbox', columns.ledgerOutbox, outbox, 't.id = $1'),
      },
      {
        counterId: String(doc.counter_id),
        documentId: String(doc.id),
        auditId: String(audit.id),
        salesOutboxId: String(salesOutbox.id),
        entryId: String(entry.id),
        entryRowIds: entryRows.rows.map((r) => r.id),
        ledgerOutboxId: String(ledgerOutbox.id),
        inboxConsumer: inbox.consumer,
        inboxSubject: inbox.subject,
      },
    );
  }

  /** One document's rows, sales' transaction then accounting's. */
  async write(): Promise<void> {
    const i = ++this.n;
    const s = this.sample;
    const newDoc = await inTransaction(this.sales, async (c) => {
      const counter = await c.query(this.sql.counter, [s.counterId]);
      const doc = await c.query<{ id: string }>(this.sql.document, [s.documentId, `PG${counter.rows[0].last_value}-${i}`]);
      await c.query(this.sql.audit, [s.auditId, doc.rows[0].id]);
      await c.query(this.sql.salesOutbox, [s.salesOutboxId]);
      return doc.rows[0].id;
    });
    await inTransaction(this.accounting, async (c) => {
      await c.query(this.sql.inbox, [s.inboxConsumer, s.inboxSubject]);
      const entry = await c.query<{ id: string }>(this.sql.entry, [s.entryId, newDoc]);
      const rows = await c.query<{ id: string; ord: number }>(this.sql.rows, [s.entryId, entry.rows[0].id]);
      await c.query(this.sql.taxRows, [s.entryId, entry.rows[0].id, s.entryRowIds, rows.rows.sort((a, b) => a.ord - b.ord).map((r) => r.id)]);
      await c.query(this.sql.ledgerOutbox, [s.ledgerOutboxId]);
    });
  }
}

async function inTransaction<T>(pool: pg.Pool, work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('begin');
    const out = await work(c);
    await c.query('commit');
    return out;
  } catch (err) {
    await c.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}
