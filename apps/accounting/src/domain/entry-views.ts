import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { sqlRows, type TenantScope } from '@ledgerline/service-kit';
import { entriesBuilt, entryViewText, entryViewTextOfInserted } from './transactions.js';

/*
 * The ledger's stored entry views (decision 260): written with each live posting, and after a
 * rebuild (which stages rows, not views) by `fillEntryViews`, once the planner's statistics of
 * the moved rows are fresh.
 */

/** An entry as just stored, in database column names: what its view is built from. */
type InsertedEntry = Parameters<typeof entryViewTextOfInserted>[0];

/**
 * The views of entries just stored (decision 260), in one statement: what a page of the ledger
 * reads for each of them instead of their rows. Written in the entry's transaction, so an entry
 * and its view commit together.
 */
export async function storeViews(scope: TenantScope, stored: ReadonlyArray<{ id: number; stored: InsertedEntry }>): Promise<void> {
  const { em, orgId } = scope;
  await insertViews(em, orgId, stored.map((s) => s.id), stored.map((s) => entryViewTextOfInserted(s.stored)));
}

/**
 * The most views a live batch stores at once (the ledger consumers' concurrency): statements of
 * up to this many rows are prepared, one per size, per connection; a fill's larger batches are not.
 */
const PREPARED_VIEW_ROWS = 32;

/**
 * Entry views in one statement, the i-th text for the i-th id; a view already there is kept (a
 * fill racing a live posting). Each text is a parameter of its own: as one `text[]` parameter
 * every quote of the JSON was escaped into the array's literal and parsed back out of it, which
 * took more than half of a fill's CPU (2026-12-06, 40 000 entries: 11–12 s against 4–5 s).
 */
async function insertViews(em: EntityManager, orgId: number, ids: number[], texts: string[]): Promise<void> {
  if (ids.length === 0) return;
  const values = ids.map(() => '(?::bigint, ?::text)').join(', ');
  await sqlRows(
    em,
    `insert into ledger_entry_views (transaction_id, org_id, view)
       select v.t, ?::int, v.view from (values ${values}) as v(t, view) on conflict (transaction_id) do nothing`,
    [orgId, ...ids.flatMap((id, i) => [id, texts[i]])],
    { prepared: ids.length <= PREPARED_VIEW_ROWS },
  );
}

/**
 * Refreshes the planner's statistics of the ledger's tables, as after any bulk load: a rebuild
 * moves an organisation's whole ledger in at once, and until they are read again the planner can
 * take the organisation for an empty one — reading a page's rows through the trial balance's
 * index over every row of the organisation (92 ms a batch against 2.5 ms by the entries' own
 * index, 2026-12-06, with the ledger rebuilt where autovacuum had not yet run).
 */
export async function refreshLedgerStatistics(orm: MikroORM): Promise<void> {
  await sqlRows(orm.em.fork(), 'analyze accounting_transactions, ledger_rows, ledger_tax_rows, ledger_entry_views');
}

/**
 * Writes the stored views (decision 260) of an organisation's entries that have none — what a
 * rebuild leaves, since it stages rows and not views — built from their rows as a page without
 * them is. One transaction per batch, so the API reads the ledger meanwhile and a stop leaves
 * what was written; a view that appeared meanwhile is kept. Answers how many it wrote.
 *
 * The walk is a keyset over the organisation's (date_posting, id) index, and the views already
 * there are probed by key, so no batch's plan depends on statistics a rebuild has just made stale:
 * asking the database for "entries without a view" joined the views table by a plan chosen from
 * its statistics, and the same fill took 5.8 s with them fresh and 23.5 s with them stale.
 */
export async function fillEntryViews(orm: MikroORM, orgId: number, batch = 500): Promise<number> {
  let after = { day: '-infinity', id: 0 };
  let written = 0;
  // bounded: each pass starts after the last entry it read, in the index's order
  for (;;) {
    const read = await orm.em.fork().transactional(async (tem) => {
      // a batch is an index walk and a probe a view: a parallel plan's workers took longer to
      // start (about 25 ms) than the reads themselves
      await sqlRows(tem, 'set local max_parallel_workers_per_gather = 0');
      const found = await sqlRows<{ id: string; day: string }>(
        tem,
        `select t.id, to_char(t.date_posting, 'YYYY-MM-DD') as day from accounting_transactions t
          where t.org_id = ? and (t.date_posting, t.id) > (?::date, ?::bigint) order by t.date_posting, t.id limit ?`,
        [orgId, after.day, after.id, batch],
      );
      const ids = found.map((r) => Number(r.id));
      const viewed = new Set(
        (
          await sqlRows<{ id: string }>(tem, 'select transaction_id as id from ledger_entry_views where org_id = ? and transaction_id = any(?::bigint[])', [orgId, `{${ids.join(',')}}`])
        ).map((r) => Number(r.id)),
      );
      const built = await entriesBuilt({ em: tem, orgId }, ids.filter((id) => !viewed.has(id)), new Set());
      const entries = [...built.values()];
      await insertViews(tem, orgId, entries.map((e) => Number(e.header.id)), entries.map((e) => entryViewText(e.header, e.rows, e.taxRows)));
      written += entries.length;
      return found;
    });
    if (read.length < batch) return written;
    const last = read[read.length - 1];
    after = { day: last.day, id: Number(last.id) };
  }
}
