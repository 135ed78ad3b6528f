import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { from as copyFrom } from 'pg-copy-streams';
import { sqlRows } from '@ledgerline/service-kit';
import type { SourceType } from './posting-map.js';

/*
 * A ledger generation (decision 245): an organisation's rebuilt postings staged in tables of their
 * own — unlogged, without indexes, foreign keys or triggers — by several connections at once, each
 * batch loaded by COPY (decision 256), while the ledger the API reads stays as it is; then moved
 * into the ledger in one statement per table, inside the transaction that deletes the old
 * postings, so the new generation becomes current in one commit. The rows take the ledger's ids
 * (its own sequences) as they are moved in: a plain insert … select.
 */

/** Where generations' tables live: apart from the ledger's, so nothing that reads the ledger sees them. */
export const GENERATION_SCHEMA = 'ledger_generations';

/** The lock a rebuild of one organisation holds throughout: two rebuilds of it never stage at once. */
const LOCK_CLASS = 0x1ed9e4; // any constant: the advisory lock's first key, the organisation its second

/** A ledger table and the columns a generation moves into it (every column but those left to their defaults). */
interface MovedTable {
  table: 'accounting_transactions' | 'ledger_rows' | 'ledger_tax_rows';
  suffix: 'tx' | 'rows' | 'tax';
  columns: string[];
}

/** An event left to the ledger's own path after the move (a later version, a credit, a journal entry), with what a credit names. */
export interface TailEvent {
  seq: number;
  type: SourceType;
  event: unknown;
  credited?: { type: SourceType; id: number | null; no: string | null } | null;
}

/** A raw connection of the pool (the driver's client): the organisation's lock is held on one, a batch is staged on another. */
interface LockConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  /** A COPY … FROM STDIN: a stream the rows are written to. */
  query<T extends NodeJS.WritableStream>(copy: T): T;
}
interface DriverClient {
  acquireConnection(): Promise<LockConnection>;
  releaseConnection(conn: LockConnection): Promise<void>;
}

/**
 * The columns a staged line reads from its row, in order (`stage`): the moved ones but `org_id`,
 * and a tax row's `row_ord` (its row's `ord`). Every line then ends with what places it:
 * `org_id` and, for a header, `seq` (its place in the streams); for a row or tax row, `tx_uid`
 * (its header's uid).
 */
export interface StagedColumns {
  tx: string[];
  rows: string[];
  tax: string[];
}
const LINE_ENDS: Record<keyof StagedColumns, string[]> = { tx: ['org_id', 'seq'], rows: ['org_id', 'tx_uid'], tax: ['org_id', 'tx_uid'] };

/** A row's columns as the text of their row type: the same text for the same values on both sides of the comparison. */
const recordText = (cols: string[], alias: string, extra = '') => `row(${cols.map((c) => `${alias}.${c}`).join(', ')}${extra})::text`;
const digestOf = (text: string) => `sha256(convert_to(${text}, 'UTF8'))`;
/** The digest of a posting's rows (or tax rows), each row's text in `order`. */
const aggregateDigest = (text: string, order: string) => digestOf(`string_agg(${text}, E'\\n' order by ${order})`);

/** Another rebuild of the organisation holds its lock. */
export class RebuildRunningError extends Error {}

/**
 * The generation's tables no longer hold what was staged: their rows are unlogged, so a standby
 * promoted to primary has the tables but none of their rows. The switch refuses to go on.
 */
export class GenerationLostError extends Error {}

export class LedgerGeneration {
  /** Headers and tail events staged so far (what the switch must find). */
  private staged = { headers: 0, tail: 0 };
  /** The staged side's digests being made on a connection of their own (`digestStaged`); null until started. */
  private stagedDigests: Promise<void> | null = null;

  private constructor(
    private readonly orm: MikroORM,
    readonly orgId: number,
    /** `ledger_generations.g<org>_<random>`: the prefix of the generation's tables. */
    private readonly prefix: string,
    private readonly tables: MovedTable[],
    private readonly lock: { client: DriverClient; conn: LockConnection },
  ) {}

  /**
   * Takes the organisation's rebuild lock (refused while another rebuild of it runs), drops what a
   * rebuild of it that died left behind, and makes the generation's empty tables.
   */
  static async open(orm: MikroORM, orgId: number): Promise<LedgerGeneration> {
    const client = orm.em.getConnection().getKnex().client as unknown as DriverClient;
    const conn = await client.acquireConnection();
    try {
      const { rows } = await conn.query('select pg_try_advisory_lock($1, $2) as locked', [LOCK_CLASS, orgId]);
      if (!rows[0].locked) throw new RebuildRunningError(`a rebuild of organisation ${orgId}'s ledger is running`);
    } catch (err) {
      await client.releaseConnection(conn);
      throw err;
    }
    try {
      const em = orm.em.fork();
      // two rebuilds (of two organisations) making the schema at once: the loser finds it made
      await sqlRows(em, `create schema if not exists ${GENERATION_SCHEMA}`).catch(async (err) => {
        const [made] = await sqlRows<{ n: number }>(em, 'select count(*)::int as n from pg_namespace where nspname = ?', [GENERATION_SCHEMA]);
        if (!made?.n) throw err;
      });
      // a rebuild that died (its process killed) left its tables; holding the lock, none of them is in use
      const left = await sqlRows<{ name: string }>(em, `select tablename as name from pg_tables where schemaname = ? and tablename like ?`, [GENERATION_SCHEMA, `g${orgId}\\_%`]);
      for (const { name } of left) await sqlRows(em, `drop table if exists ${GENERATION_SCHEMA}."${name}"`);
      const prefix = `${GENERATION_SCHEMA}.g${orgId}_${randomBytes(6).toString('hex')}`;
      const columnsOf = async (table: string) =>
        (
          await sqlRows<{ name: string }>(
            em,
            `select column_name as name from information_schema.columns where table_schema = 'public' and table_name = ? and column_name not in ('id', 'created_at', 'transaction_id', 'row_id') order by ordinal_position`,
            [table],
          )
        ).map((c) => c.name);
      const tables: MovedTable[] = [
        { table: 'accounting_transactions', suffix: 'tx', columns: await columnsOf('accounting_transactions') },
        { table: 'ledger_rows', suffix: 'rows', columns: await columnsOf('ledger_rows') },
        { table: 'ledger_tax_rows', suffix: 'tax', columns: await columnsOf('ledger_tax_rows') },
      ];
      // `create table … as … with no data`: the columns and their types, none of the constraints, indexes or triggers
      for (const t of tables) await sqlRows(em, `create unlogged table ${prefix}_${t.suffix} as select * from public.${t.table} with no data`);
      await sqlRows(em, `alter table ${prefix}_tx add column seq bigint`);
      await sqlRows(em, `alter table ${prefix}_rows add column tx_uid uuid`);
      await sqlRows(em, `alter table ${prefix}_tax add column tx_uid uuid, add column row_ord int`);
      await sqlRows(em, `create unlogged table ${prefix}_tail (seq bigint primary key, type text not null, event text not null, credited_type text, credited_id bigint, credited_no text)`);
      return new LedgerGeneration(orm, orgId, prefix, tables, { client, conn });
    } catch (err) {
      await conn.query('select pg_advisory_unlock($1, $2)', [LOCK_CLASS, orgId]).catch(() => undefined);
      await client.releaseConnection(conn);
      throw err;
    }
  }

  /** Postings staged so far (those the move will take in). */
  get stagedPostings(): number {
    return this.staged.headers;
  }

  /** What a staged line reads from its row (`StagedColumns`). Ids are the ledger's, given as the rows are moved in. */
  get columns(): StagedColumns {
    const [tx, rows, tax] = this.tables.map((t) => t.columns.filter((c) => c !== 'org_id'));
    return { tx, rows, tax: [...tax, 'row_ord'] };
  }

  /**
   * Stages a batch of postings on a connection of the pool of its own (several batches load at
   * once), as COPY text lines (`columns`, then what places each line): headers, rows and tax rows
   * in one transaction, so a batch the database refuses leaves nothing staged.
   */
  async stage(headers: string, rows: string, taxes: string): Promise<void> {
    const columns = this.columns;
    const list = (suffix: keyof StagedColumns) => [...columns[suffix], ...LINE_ENDS[suffix]].map((c) => `"${c}"`).join(', ');
    let n = 0;
    await this.inTransactionOfItsOwn(async (conn) => {
      for (const [suffix, lines] of [['tx', headers], ['rows', rows], ['tax', taxes]] as const) {
        if (lines === '') continue;
        const copy = conn.query(copyFrom(`copy ${this.prefix}_${suffix} (${list(suffix)}) from stdin`));
        await pipeline(Readable.from([lines]), copy);
        if (suffix === 'tx') n = copy.rowCount;
      }
    });
    this.staged.headers += n;
  }

  /** `work` in a transaction on a connection of the pool of its own: committed when it ends, rolled back when it throws. */
  private async inTransactionOfItsOwn(work: (conn: LockConnection) => Promise<void>): Promise<void> {
    const client = this.orm.em.getConnection().getKnex().client as unknown as DriverClient;
    const conn = await client.acquireConnection();
    try {
      await conn.query('begin');
      await work(conn);
      await conn.query('commit');
    } catch (err) {
      await conn.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      await client.releaseConnection(conn);
    }
  }

  /** Stages events for the ledger's own path after the move, in their streams' order. */
  async stageTail(events: TailEvent[]): Promise<void> {
    if (events.length === 0) return;
    await sqlRows(
      this.orm.em.fork(),
      `insert into ${this.prefix}_tail (seq, type, event, credited_type, credited_id, credited_no)
       select * from unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[])`,
      [
        events.map((e) => e.seq),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.event)),
        events.map((e) => e.credited?.type ?? null),
        events.map((e) => e.credited?.id ?? null),
        events.map((e) => e.credited?.no ?? null),
      ],
    );
    this.staged.tail += events.length;
  }

  /**
   * Credits left to the ledger's own path that name a document staged after them in the streams:
   * replayed in order, such a credit would not find it, but after the move it would. A generation
   * with any is not used (the rebuild replays in order instead).
   */
  async creditsOfLaterDocuments(): Promise<number> {
    const [{ n }] = await sqlRows<{ n: number }>(
      this.orm.em.fork(),
      `select (select count(*) from ${this.prefix}_tail t join ${this.prefix}_tx s on s.source_type = t.credited_type and s.source_id = t.credited_id where s.seq > t.seq)
            + (select count(*) from ${this.prefix}_tail t join ${this.prefix}_tx s on s.source_type = t.credited_type and s.no = t.credited_no where s.seq > t.seq) as n`,
    );
    return Number(n);
  }

  /** A staged accounting transaction whose rows do not balance (the drafts are balanced; the ledger's own check is off for the move). */
  async unbalanced(): Promise<{ id: string; debit: string; credit: string } | null> {
    const [bad] = await sqlRows<{ id: string; debit: string; credit: string }>(
      this.orm.em.fork(),
      `select tx_uid::text as id, sum(debit)::text as debit, sum(credit)::text as credit from ${this.prefix}_rows group by tx_uid having sum(debit) <> sum(credit) limit 1`,
    );
    return bad ?? null;
  }

  /**
   * Starts digesting the staged postings into `<prefix>_digests` (uid, then the digests of the
   * header, its rows and its tax rows, as `keptPostings` digests the old ledger's), on a
   * connection of the pool of its own, and answers at once (decision 275). Started once staging
   * is done, it runs while the rebuild checks the generation and digests the old ledger in the
   * switching transaction: the two sides of the comparison on two cores at once, where they took
   * one after the other while the organisation's ledger was locked. The switch waits for it.
   */
  digestStaged(): void {
    if (this.stagedDigests) return;
    const [tx, rows, tax] = this.tables.map((t) => t.columns.map((c) => `"${c}"`));
    const made = this.inTransactionOfItsOwn(async (conn) => {
      // the aggregates' row counts are guesses to the planner (see keptPostings): no nested loops
      await conn.query('set local enable_nestloop = off');
      await conn.query(
        `create unlogged table ${this.prefix}_digests as
         with new_h as (
           select s.uid, ${digestOf(recordText(tx, 's'))} as d from ${this.prefix}_tx s
         ), new_r as (
           select s.tx_uid as uid, ${aggregateDigest(recordText(rows, 's'), 's.ord')} as d from ${this.prefix}_rows s group by s.tx_uid
         ), new_x as (
           select s.tx_uid as uid, ${aggregateDigest(recordText(tax, 's', ', s.row_ord'), 's.ord')} as d from ${this.prefix}_tax s group by s.tx_uid
         )
         select h.uid, h.d as hd, r.d as rd, x.d as xd from new_h h left join new_r r on r.uid = h.uid left join new_x x on x.uid = h.uid`,
      );
    });
    // awaited by the switch, which reports a failure, and by close(); never left unhandled meanwhile
    made.catch(() => undefined);
    this.stagedDigests = made;
  }

  /**
   * Makes the staged postings the organisation's ledger in the caller's transaction (decision 264):
   * what the old ledger already holds exactly as staged — the header, every row and tax row, each
   * column but the ids and the time it was stored — stays as it is, with its id and stored view;
   * every other posting of the organisation is deleted (those the tail makes included, as the
   * tail makes them again); the staged postings not kept are moved in. A rebuild of a ledger that
   * was right deletes and writes next to nothing, and one whose rules changed everything does
   * what a whole replacement did, after one comparison. Answers the postings kept and moved, and
   * the seconds the comparison and the deletes took.
   */
  async switchInto(tem: EntityManager): Promise<{ kept: number; moved: number; clearSeconds: number }> {
    const started = performance.now();
    await sqlRows(tem, `select set_config('ledger.rebuild', 'on', true)`);
    const kept = await this.keptPostings(tem);
    const notKept = (id: string) => `not exists (select 1 from pg_temp.ledger_kept k where k.id = ${id})`;
    // tax rows and stored views by their transactions (index ledger_tax_rows_tx, the views' key),
    // not by a read of every organisation's
    await sqlRows(tem, `delete from ledger_tax_rows x using accounting_transactions t where t.org_id = ? and x.transaction_id = t.id and ${notKept('t.id')}`, [this.orgId]);
    await sqlRows(tem, `delete from ledger_entry_views v using accounting_transactions t where t.org_id = ? and v.transaction_id = t.id and ${notKept('t.id')}`, [this.orgId]);
    await sqlRows(tem, `delete from ledger_rows r where r.org_id = ? and ${notKept('r.transaction_id')}`, [this.orgId]);
    await sqlRows(tem, `delete from accounting_transactions t where t.org_id = ? and ${notKept('t.id')}`, [this.orgId]);
    const clearSeconds = (performance.now() - started) / 1000;
    const moved = await this.moveInto(tem);
    await sqlRows(tem, `select set_config('ledger.rebuild', 'off', true)`);
    if (kept + moved !== this.staged.headers) {
      throw new GenerationLostError(`ledger generation of organisation ${this.orgId}: ${this.staged.headers} postings were staged, ${kept + moved} found to move; the ledger is unchanged`);
    }
    return { kept, moved, clearSeconds };
  }

  /**
   * The old postings equal to staged ones, into the transaction's temporary table `ledger_kept`
   * (id, uid): matched by uid (the source fact's, the same in every rebuild), then by a digest of
   * the header's columns, of its rows' in order and of its tax rows' in order with their rows'
   * `ord`, each as the same row type's text on both sides (the staged tables are made from the
   * ledger's), so a value differing in any column differs. The old side is digested in the
   * switching transaction while the staged side is on another connection (`digestStaged`).
   * Answers how many.
   */
  private async keptPostings(tem: EntityManager): Promise<number> {
    const [tx, rows, tax] = this.tables.map((t) => t.columns.map((c) => `"${c}"`));
    this.digestStaged();
    // the aggregates' row counts are guesses to the planner: a nested loop over two of them is
    // quadratic (tens of minutes for 40 000 postings, tried); hash and merge joins are not
    await sqlRows(tem, 'set local enable_nestloop = off');
    // the old side, in this transaction, while the staged side is digested on another connection
    await sqlRows(
      tem,
      `create temp table ledger_old_digests on commit drop as
       with old_h as (
         select t.id, t.uid, ${digestOf(recordText(tx, 't'))} as d from public.accounting_transactions t where t.org_id = ?
       ), old_r as (
         select r.transaction_id as id, ${aggregateDigest(recordText(rows, 'r'), 'r.ord')} as d from public.ledger_rows r where r.org_id = ? group by r.transaction_id
       ), old_x as (
         select x.transaction_id as id, ${aggregateDigest(recordText(tax, 'x', ', o.ord'), 'x.ord')} as d
           from public.ledger_tax_rows x join public.ledger_rows o on o.id = x.row_id where x.org_id = ? group by x.transaction_id
       )
       select h.id, h.uid, h.d as hd, r.d as rd, x.d as xd from old_h h left join old_r r on r.id = h.id left join old_x x on x.id = h.id`,
      [this.orgId, this.orgId, this.orgId],
    );
    await this.stagedDigests;
    // a kept posting is one found staged: its header in the staged table, not its digest alone
    await sqlRows(
      tem,
      `create temp table ledger_kept on commit drop as
       select o.id, o.uid from pg_temp.ledger_old_digests o join ${this.prefix}_digests n on n.uid = o.uid and n.hd = o.hd
         join ${this.prefix}_tx s on s.uid = n.uid
        where o.rd is not distinct from n.rd and o.xd is not distinct from n.xd`,
    );
    await sqlRows(tem, 'set local enable_nestloop = default');
    await sqlRows(tem, 'alter table pg_temp.ledger_kept add primary key (id)');
    await sqlRows(tem, 'create unique index on pg_temp.ledger_kept (uid)');
    // a temporary table has no statistics until analysed: the deletes' plans read its size
    await sqlRows(tem, 'analyze pg_temp.ledger_kept');
    const [{ n }] = await sqlRows<{ n: number }>(tem, 'select count(*)::int as n from pg_temp.ledger_kept');
    return n;
  }

  /**
   * Moves the staged postings not kept (`switchInto`) into the ledger: the accounts they name,
   * then one insert per table in id order. Answers the headers moved.
   */
  private async moveInto(tem: EntityManager): Promise<number> {
    await sqlRows(
      tem,
      `insert into gl_accounts (org_id, number, name_cs, name_en)
       select ?::bigint, n, 'Účet ' || n, 'Account ' || n from (select distinct gl_account_number as n from ${this.prefix}_rows) a order by n
       on conflict (org_id, number) do nothing`,
      [this.orgId],
    );
    const [tx, rows, tax] = this.tables.map((t) => t.columns.map((c) => `"${c}"`));
    const from = (cols: string[], alias: string) => cols.map((c) => `${alias}.${c}`).join(', ');
    // one statement: the headers' ids (the ledger's own sequence) are known to the rows only from its answer
    const [{ n: headers }] = await sqlRows<{ n: number }>(
      tem,
      `with h as (
         insert into public.accounting_transactions (${tx.join(', ')}) select ${from(tx, 's')} from ${this.prefix}_tx s
          where not exists (select 1 from pg_temp.ledger_kept k where k.uid = s.uid) order by s.seq returning id, uid
       ), r as (
         insert into public.ledger_rows (transaction_id, ${rows.join(', ')})
         select h.id, ${from(rows, 's')} from ${this.prefix}_rows s join h on h.uid = s.tx_uid order by h.id, s.ord returning id, transaction_id, ord
       ), x as (
         insert into public.ledger_tax_rows (transaction_id, row_id, ${tax.join(', ')})
         select h.id, r.id, ${from(tax, 's')} from ${this.prefix}_tax s join h on h.uid = s.tx_uid join r on r.transaction_id = h.id and r.ord = s.row_ord
          order by h.id, s.ord returning 1
       )
       select (select count(*) from h)::int as n, (select count(*) from x)::int as taxes`,
    );
    return headers;
  }

  /** The staged tail in order, a page at a time, read in the caller's transaction. */
  async *tail(tem: EntityManager, page = 500): AsyncGenerator<TailEvent> {
    let after = -1;
    let read = 0;
    for (;;) {
      const rows = await sqlRows<{ seq: string; type: SourceType; event: string }>(tem, `select seq, type, event from ${this.prefix}_tail where seq > ? order by seq limit ?`, [after, page]);
      read += rows.length;
      if (rows.length < page && read !== this.staged.tail) {
        throw new GenerationLostError(`ledger generation of organisation ${this.orgId}: ${this.staged.tail} events were left to replay in order, ${read} found; the ledger is unchanged`);
      }
      for (const r of rows) yield { seq: Number(r.seq), type: r.type, event: JSON.parse(r.event) };
      if (rows.length < page) return;
      after = Number(rows.at(-1)!.seq);
    }
  }

  /** Drops the generation's tables and releases the organisation's lock. */
  async close(): Promise<void> {
    try {
      // the staged side's digests made first, or their table would outlive the drop
      await this.stagedDigests?.catch(() => undefined);
      const em = this.orm.em.fork();
      for (const suffix of ['tx', 'rows', 'tax', 'tail', 'digests']) await sqlRows(em, `drop table if exists ${this.prefix}_${suffix}`);
    } finally {
      await this.lock.conn.query('select pg_advisory_unlock($1, $2)', [LOCK_CLASS, this.orgId]).catch(() => undefined);
      await this.lock.client.releaseConnection(this.lock.conn);
    }
  }
}
