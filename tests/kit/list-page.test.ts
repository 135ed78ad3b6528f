import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { containsPattern, dropDatabase, initOrm, listPage, sortedPage, sqlRows, where, type ListPageQuery } from '@ledgerline/service-kit';
import { isolation } from '../support/stack.js';

/*
 * A list's page and total in one statement, without entities (issue 15), on the real Postgres:
 * tenant-scoped whatever the filters, filters' values bound (never spliced into the SQL), the
 * total answered on an empty page, ties broken by id.
 */

const env = isolation();
const databaseName = `${env.DATABASE_PREFIX}listpage`;
let orm: MikroORM;

beforeAll(async () => {
  orm = await initOrm({ databaseUrl: env.DATABASE_URL, databaseName, entities: [], migrations: [], poolMax: 4 });
  const em = orm.em.fork();
  await sqlRows(em, 'create table docs (id serial primary key, org_id int not null, name text not null, status text not null, day date not null, amount numeric(20,4) not null)');
  // organisation 1: ten documents; organisation 2: one that must never show in 1's lists
  for (let i = 1; i <= 10; i++) {
    await sqlRows(em, 'insert into docs (org_id, name, status, day, amount) values (1, ?, ?, ?, ?)', [
      i === 3 ? '50%_off\\deal' : i === 4 ? '50 percent off' : `doc ${i}`,
      i % 2 ? 'paid' : 'unpaid',
      `2026-01-${String(i).padStart(2, '0')}`,
      i % 3,
    ]);
  }
  await sqlRows(em, "insert into docs (org_id, name, status, day, amount) values (2, 'doc of another', 'paid', '2026-01-05', 1)");
});
afterAll(async () => {
  await orm?.close(true);
  await dropDatabase(env.DATABASE_URL, databaseName);
});

const base = (over: Partial<ListPageQuery> = {}): ListPageQuery => ({
  table: 'docs',
  columns: "id, name, status, to_char(day, 'YYYY-MM-DD') as day, amount::text as amount",
  orgId: 1,
  conditions: [],
  sort: [],
  sortColumns: { id: 'id', name: 'name', day: 'day', amount: 'amount' },
  tieBreak: 'asc',
  from: 0,
  take: 100,
  ...over,
});
type Row = { id: number; name: string; status: string; day: string; amount: string };
const ids = (rows: Row[]) => rows.map((r) => r.id);

describe('listPage', () => {
  it("answers one organisation's rows and their total, paged, without the count's column", async () => {
    const all = await listPage<Row>(orm.em.fork(), base());
    expect(all.total).toBe(10);
    expect(ids(all.rows)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(all.rows[0]).toEqual({ id: 1, name: 'doc 1', status: 'paid', day: '2026-01-01', amount: '1.0000' });
    const second = await listPage<Row>(orm.em.fork(), base({ from: 4, take: 3 }));
    expect({ total: second.total, ids: ids(second.rows) }).toEqual({ total: 10, ids: [5, 6, 7] });
    const other = await listPage<Row>(orm.em.fork(), base({ orgId: 2 }));
    expect({ total: other.total, names: other.rows.map((r) => r.name) }).toEqual({ total: 1, names: ['doc of another'] });
  });

  it('answers the total on an empty page: past the end, take 0, and nothing matching', async () => {
    const empty = { totalExact: true, nextCursor: null, rows: [] };
    expect(await listPage<Row>(orm.em.fork(), base({ from: 50 }))).toEqual({ ...empty, total: 10 });
    expect(await listPage<Row>(orm.em.fork(), base({ take: 0 }))).toEqual({ ...empty, total: 10 });
    expect(await listPage<Row>(orm.em.fork(), base({ conditions: [where.eq('status', 'void')] }))).toEqual({ ...empty, total: 0 });
  });

  it('filters by equality, list membership and inclusive ranges', async () => {
    const unpaid = await listPage<Row>(orm.em.fork(), base({ conditions: [where.eq('status', 'unpaid')] }));
    expect(ids(unpaid.rows)).toEqual([2, 4, 6, 8, 10]);
    const either = await listPage<Row>(orm.em.fork(), base({ conditions: [where.oneOf('status', ['unpaid', 'paid'])] }));
    expect(either.total).toBe(10);
    const ranged = await listPage<Row>(orm.em.fork(), base({ conditions: where.within('day', { from: '2026-01-03', to: '2026-01-05' }) }));
    expect(ids(ranged.rows)).toEqual([3, 4, 5]);
    const open = await listPage<Row>(orm.em.fork(), base({ conditions: where.within('day', { from: '2026-01-09' }) }));
    expect(ids(open.rows)).toEqual([9, 10]);
    expect(where.within('day', undefined)).toEqual([]);
    // a range of one value is an equality, which an index on (…, day, id) answers in id order
    expect(where.within('day', { from: '2026-01-04', to: '2026-01-04' })).toEqual([{ sql: 'day = ?', params: ['2026-01-04'] }]);
    expect(ids((await listPage<Row>(orm.em.fork(), base({ conditions: where.within('day', { from: '2026-01-04', to: '2026-01-04' }) }))).rows)).toEqual([4]);
    expect(() => where.oneOf('status', [])).toThrow();
  });

  it('searches literally: % _ and \\ in the text are characters, not wildcards; quotes are data', async () => {
    const literal = await listPage<Row>(orm.em.fork(), base({ conditions: [where.containsAny(['name', 'status'], '50%_OFF\\')] }));
    expect(literal.rows.map((r) => r.name)).toEqual(['50%_off\\deal']);
    const quoted = await listPage<Row>(orm.em.fork(), base({ conditions: [where.containsAny(['name'], "'; drop table docs; --")] }));
    expect(quoted.total).toBe(0);
    expect((await listPage<Row>(orm.em.fork(), base())).total).toBe(10);
    expect(containsPattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });

  it('sorts by the named columns, ties broken by id in the given direction', async () => {
    const byAmount = await listPage<Row>(orm.em.fork(), base({ sort: [{ field: 'amount', direction: 'desc' }], tieBreak: 'desc' }));
    expect(ids(byAmount.rows)).toEqual([8, 5, 2, 10, 7, 4, 1, 9, 6, 3]);
    const byAmountAsc = await listPage<Row>(orm.em.fork(), base({ sort: [{ field: 'amount', direction: 'asc' }] }));
    expect(ids(byAmountAsc.rows)).toEqual([3, 6, 9, 1, 4, 7, 10, 2, 5, 8]);
    const byIdDesc = await listPage<Row>(orm.em.fork(), base({ sort: [{ field: 'id', direction: 'desc' }], take: 2 }));
    expect(ids(byIdDesc.rows)).toEqual([10, 9]);
    await expect(listPage<Row>(orm.em.fork(), base({ sort: [{ field: 'colour', direction: 'asc' }] }))).rejects.toThrow(/no column for sort field colour/);
  });

  it('sortedPage reads sort= against the sortable fields: id ascending unless asked, unknown fields refused', async () => {
    const columns = { id: 'id', amount: 'amount' };
    expect(sortedPage({ from: 2, take: 3 }, columns)).toEqual({ sort: [{ field: 'id', direction: 'asc' }], sortColumns: columns, tieBreak: 'asc', from: 2, take: 3, cursor: undefined, exactTotal: undefined });
    const asked = sortedPage({ sort: ['-amount'], from: 0, take: 10 }, columns);
    expect(ids((await listPage<Row>(orm.em.fork(), base(asked))).rows)).toEqual([2, 5, 8, 1, 4, 7, 10, 3, 6, 9]);
    expect(() => sortedPage({ sort: ['name'], from: 0, take: 10 }, columns)).toThrow(/Cannot sort by "name"/);
  });
});
