import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { EXACT_TOTAL_LIMIT } from '@ledgerline/contracts';
import { dropDatabase, initOrm, listPage, sqlRows, where, type ListPageQuery, type SortKey } from '@ledgerline/service-kit';
import { isolation } from '../support/stack.js';
import { seededRandom } from '../support/seeded-random.js';

/*
 * Keyset paging (decision 213) on the real Postgres: following next_cursor from the first page
 * answers exactly the rows of the whole list in its order, whatever the sort (nullable keys, mixed
 * directions, ties), filter and page size; a cursor continues only the list it came from; the
 * count stops at EXACT_TOTAL_LIMIT and estimates beyond unless asked to count.
 */

const env = isolation();
const databaseName = `${env.DATABASE_PREFIX}keyset`;
let orm: MikroORM;

beforeAll(async () => {
  orm = await initOrm({ databaseUrl: env.DATABASE_URL, databaseName, entities: [], migrations: [], poolMax: 4 });
  const em = orm.em.fork();
  await sqlRows(
    em,
    `create table docs (id bigserial primary key, org_id int not null, rank int, label text, day date not null, amount numeric(20,4) not null, stamp timestamptz not null)`,
  );
  // few distinct values and many nulls, so ties and null runs cross page boundaries
  await sqlRows(
    em,
    `insert into docs (org_id, rank, label, day, amount, stamp)
     select 1 + (g % 7 = 0)::int,
            case when g % 5 = 0 then null else g % 4 end,
            case when g % 3 = 0 then null else chr(97 + g % 3) end,
            date '2026-01-01' + (g % 6),
            (g % 9) * 12.5,
            timestamptz '2026-01-01 00:00:00.123456+00' + (g % 11) * interval '1 microsecond'
       from generate_series(1, 420) g`,
  );
  // organisation 3: more than the counted total
  await sqlRows(em, `insert into docs (org_id, rank, label, day, amount, stamp) select 3, 1, 'x', date '2026-02-01', 1, now() from generate_series(1, ${EXACT_TOTAL_LIMIT + 50})`);
  await sqlRows(em, 'analyze docs');
});
afterAll(async () => {
  await orm?.close(true);
  await dropDatabase(env.DATABASE_URL, databaseName);
});

const SORTABLE = { id: 'id', rank: 'rank', label: 'label', day: 'day', amount: 'amount', stamp: 'stamp' };
const base = (over: Partial<ListPageQuery> = {}): ListPageQuery => ({
  table: 'docs',
  columns: 'id',
  orgId: 1,
  conditions: [],
  sort: [],
  sortColumns: SORTABLE,
  notNull: ['id', 'day', 'amount', 'stamp'],
  tieBreak: 'asc',
  from: 0,
  take: 100,
  ...over,
});
type Row = { id: string };

async function followCursors(q: ListPageQuery): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await listPage<Row>(orm.em.fork(), { ...q, cursor });
    pages++;
    ids.push(...page.rows.map((r) => String(r.id)));
    if (!page.nextCursor) return { ids, pages };
    expect(page.rows).toHaveLength(q.take);
    cursor = page.nextCursor;
    if (pages > 1000) throw new Error('cursor does not advance');
  }
}

describe('keyset paging', () => {
  it('following next_cursor answers the whole list in its order, for any sort, filter and page size', async () => {
    const next = seededRandom(20261129);
    const fields = Object.keys(SORTABLE);
    const filters = [[], [where.eq('rank', 2)], where.within('day', { from: '2026-01-02', to: '2026-01-04' }), [{ sql: 'label is null', params: [] }]];
    for (let round = 0; round < 60; round++) {
      const keys: SortKey[] = [];
      for (const f of [...fields].sort(() => next() - 0.5).slice(0, 1 + Math.floor(next() * 3))) keys.push({ field: f, direction: next() < 0.5 ? 'asc' : 'desc' });
      const q = base({ sort: keys, tieBreak: next() < 0.5 ? 'asc' : 'desc', conditions: filters[Math.floor(next() * filters.length)], take: 1 + Math.floor(next() * 40) });
      // the whole list in one page is Postgres' own order of the same statement
      const whole = await listPage<Row>(orm.em.fork(), { ...q, take: 1000 });
      const followed = await followCursors(q);
      expect(followed.ids, JSON.stringify({ round, sort: keys, tieBreak: q.tieBreak, take: q.take })).toEqual(whole.rows.map((r) => String(r.id)));
      expect(followed.pages).toBe(Math.max(1, Math.ceil(whole.rows.length / q.take)));
    }
  });

  it('answers next_cursor only while rows follow, and the same total on every page', async () => {
    const first = await listPage<Row>(orm.em.fork(), base({ take: 200 }));
    expect(first.total).toBe(360);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listPage<Row>(orm.em.fork(), base({ take: 200, cursor: first.nextCursor! }));
    expect({ rows: second.rows.length, total: second.total, next: second.nextCursor }).toEqual({ rows: 160, total: 360, next: null });
    const exact = await listPage<Row>(orm.em.fork(), base({ take: 360 }));
    expect(exact.nextCursor).toBeNull();
  });

  it('refuses a cursor of another list, another sort, other filters, another organisation, with an offset, or forged, with 400 invalid_cursor', async () => {
    const page = await listPage<Row>(orm.em.fork(), base({ take: 10, sort: [{ field: 'day', direction: 'desc' }] }));
    const cursor = page.nextCursor!;
    const refused = async (q: Partial<ListPageQuery>, why: RegExp) => {
      const err = await listPage<Row>(orm.em.fork(), base({ take: 10, sort: [{ field: 'day', direction: 'desc' }], cursor, ...q })).then(
        () => null,
        (e: unknown) => e as { status: number; code: string; message: string; errors: Array<{ path: string; code: string }> },
      );
      expect(err, String(why)).not.toBeNull();
      expect({ status: err!.status, code: err!.code, path: err!.errors[0]?.path }).toEqual({ status: 400, code: 'invalid_cursor', path: 'cursor' });
      expect(err!.message).toMatch(why);
    };
    await refused({ sort: [{ field: 'day', direction: 'asc' }] }, /another sort/);
    await refused({ conditions: [where.eq('rank', 1)] }, /other filters/);
    await refused({ orgId: 2 }, /other filters/);
    await refused({ table: 'docs_elsewhere' }, /other filters/);
    await refused({ from: 10 }, /leave from out/);
    await refused({ cursor: 'bm90LWpzb24' }, /not a cursor/);
    await refused({ cursor: Buffer.from('{"o":1}').toString('base64url') }, /not a cursor/);
    const content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v: unknown[] };
    // a forged value reaches Postgres as a parameter, which the column's type refuses
    await refused({ cursor: Buffer.from(JSON.stringify({ ...content, v: ['not a day', content.v[1]] })).toString('base64url') }, /not a cursor/);
    await refused({ cursor: Buffer.from(JSON.stringify({ ...content, v: [content.v[0], "1; drop table docs"] })).toString('base64url') }, /not a cursor/);
    await refused({ cursor: Buffer.from(JSON.stringify({ ...content, v: [content.v[0]] })).toString('base64url') }, /not a cursor/);
    await refused({ cursor: Buffer.from(JSON.stringify({ ...content, v: ['2026-01-01\u0000', content.v[1]] })).toString('base64url') }, /not a cursor/);
    expect((await listPage<Row>(orm.em.fork(), base())).total).toBe(360);
  });

  it('leaves a plan-only condition out of the count (a bound every match meets, which only steers the page)', async () => {
    // here deliberately not met by every row, to show which statement reads it
    const steered = await listPage<Row>(orm.em.fork(), base({ take: 1000, conditions: [{ sql: 'id <= ?', params: [50], planOnly: true }] }));
    expect(steered.rows.every((r) => Number(r.id) <= 50)).toBe(true);
    expect(steered.total).toBe(360);
  });

  it(`counts up to ${EXACT_TOTAL_LIMIT} matches and estimates beyond, unless asked to count`, async () => {
    const estimated = await listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 5 }));
    expect(estimated.totalExact).toBe(false);
    expect(estimated.total).toBeGreaterThan(EXACT_TOTAL_LIMIT);
    // the planner's estimate from fresh statistics is close, not exact
    expect(Math.abs(estimated.total - (EXACT_TOTAL_LIMIT + 50))).toBeLessThan((EXACT_TOTAL_LIMIT + 50) * 0.2);
    const counted = await listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 5, exactTotal: true }));
    expect({ total: counted.total, exact: counted.totalExact }).toEqual({ total: EXACT_TOTAL_LIMIT + 50, exact: true });
    // a filter that leaves fewer than the limit is counted
    const half = await listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 5, conditions: [{ sql: 'id % 2 = 0', params: [] }] }));
    const halfCounted = Number((await sqlRows<{ n: string }>(orm.em.fork(), 'select count(*) as n from docs where org_id = 3 and id % 2 = 0'))[0].n);
    expect({ total: half.total, exact: half.totalExact }).toEqual({ total: halfCounted, exact: true });
  });

  it('carries a first page’s estimate in its cursor: the pages after it answer it without counting, unless asked to count', async () => {
    const first = await listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 1000 }));
    expect(first.totalExact).toBe(false);
    // rows added while the list is walked: a page by cursor keeps the walk's estimate, as it
    // would not if it counted and estimated again
    const em = orm.em.fork();
    await sqlRows(em, `insert into docs (org_id, rank, label, day, amount, stamp) select 3, 1, 'x', date '2026-02-01', 1, now() from generate_series(1, 30000)`);
    await sqlRows(em, 'analyze docs');
    try {
      const fresh = await listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 5 }));
      expect(fresh.total).toBeGreaterThan(first.total + 20000);
      const second = await listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 1000, cursor: first.nextCursor! }));
      expect({ total: second.total, exact: second.totalExact }).toEqual({ total: first.total, exact: false });
      expect(Number(second.rows[0].id)).toBeGreaterThan(Number(first.rows.at(-1)!.id));
      const third = await listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 1000, cursor: second.nextCursor! }));
      expect(third.total).toBe(first.total);
      // asked to count, a page by the same cursor counts every match
      const counted = await listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 1000, cursor: second.nextCursor!, exactTotal: true }));
      expect({ total: counted.total, exact: counted.totalExact }).toEqual({ total: EXACT_TOTAL_LIMIT + 50 + 30000, exact: true });
    } finally {
      await sqlRows(em, `delete from docs where org_id = 3 and id > (select min(id) + ${EXACT_TOTAL_LIMIT + 49} from docs where org_id = 3)`);
      await sqlRows(em, 'analyze docs');
    }
  });

  it('refuses a cursor whose carried total is not a whole number past the counted limit', async () => {
    const first = await listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 5 }));
    const content = JSON.parse(Buffer.from(first.nextCursor!, 'base64url').toString('utf8'));
    expect(content.t).toBe(first.total);
    for (const t of [EXACT_TOTAL_LIMIT, 5, -1, 1.5, '20000', null, 2 ** 60, [20000]]) {
      const forged = Buffer.from(JSON.stringify({ ...content, t }), 'utf8').toString('base64url');
      await expect(listPage<Row>(orm.em.fork(), base({ orgId: 3, take: 5, cursor: forged })), JSON.stringify(t)).rejects.toMatchObject({ code: 'invalid_cursor' });
    }
    // a cursor of a counted list carries none
    const counted = await listPage<Row>(orm.em.fork(), base({ orgId: 1, take: 5 }));
    expect(JSON.parse(Buffer.from(counted.nextCursor!, 'base64url').toString('utf8')).t).toBeUndefined();
  });
});
