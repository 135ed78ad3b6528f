import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { connectionLoss, dropDatabase, initOrm, positional, sqlRows } from '@ledgerline/service-kit';
import { isolation } from '../support/stack.js';
import { closeAfterSending } from '../support/connection-faults.js';

/*
 * `sqlRows` sends its statement to the driver's connection itself (decision 107), so what the
 * query builder did for it is proven here: placeholders numbered as the builder numbers them,
 * values bound (never spliced), the transaction's own connection used, and a statement refused
 * rather than run outside a transaction that has ended.
 */

describe('positional placeholders', () => {
  it('numbers each ? in order and counts them', () => {
    expect(positional('select ?, ? from t where a = ?')).toEqual({ text: 'select $1, $2 from t where a = $3', count: 3 });
    expect(positional('select 1')).toEqual({ text: 'select 1', count: 0 });
  });
  it('reads a ? after an odd run of backslashes as a literal ?, as the query builder does', () => {
    expect(positional("select '{\"a\":1}'::jsonb \\? 'a', ?")).toEqual({ text: "select '{\"a\":1}'::jsonb ? 'a', $1", count: 1 });
    expect(positional('select \\\\?')).toEqual({ text: 'select $1', count: 1 });
  });
  it('answers the same numbering for the same text every time (cached)', () => {
    const sql = 'select ? as a, ? as b';
    expect(positional(sql)).toBe(positional(sql));
  });
});

const env = isolation();
const databaseName = `${env.DATABASE_PREFIX}sqlrows`;
let orm: MikroORM;

beforeAll(async () => {
  orm = await initOrm({ databaseUrl: env.DATABASE_URL, databaseName, entities: [], migrations: [], poolMax: 4 });
  await sqlRows(orm.em.fork(), 'create table notes (id serial primary key, body text not null)');
});
afterAll(async () => {
  await orm?.close(true);
  await dropDatabase(env.DATABASE_URL, databaseName);
});

describe('sqlRows on real Postgres', () => {
  it('binds values as parameters: quotes, placeholders and SQL in a value stay data', async () => {
    const hostile = "x'); drop table notes; -- ? $1 \\?";
    const [row] = await sqlRows<{ id: number; body: string }>(orm.em.fork(), 'insert into notes (body) values (?) returning id, body', [hostile]);
    expect(row.body).toBe(hostile);
    const [count] = await sqlRows<{ n: number }>(orm.em.fork(), 'select count(*)::int as n from notes where body = ?', [hostile]);
    expect(count.n).toBe(1);
  });

  it('refuses a value count that does not match the placeholders, and undefined, before reaching the server', async () => {
    await expect(sqlRows(orm.em.fork(), 'select ? as a', [])).rejects.toThrow(/1 placeholders but 0 values/);
    await expect(sqlRows(orm.em.fork(), 'select ? as a, ? as b', [1, undefined])).rejects.toThrow(/undefined bound to position 2/);
  });

  it('answers the last result of several statements sent as one text', async () => {
    const rows = await sqlRows<{ two: number }>(orm.em.fork(), 'select 1 as one; select 2 as two');
    expect(rows).toEqual([{ two: 2 }]);
  });

  it('runs on the transaction connection: a rolled-back insert is gone, a committed one stays', async () => {
    const em = orm.em.fork();
    await em.begin();
    await sqlRows(em, "insert into notes (body) values ('rolled back')");
    const [seen] = await sqlRows<{ n: number }>(em, "select count(*)::int as n from notes where body = 'rolled back'");
    expect(seen.n).toBe(1); // visible inside its transaction
    await em.rollback();
    await em.transactional(async (tem) => {
      await sqlRows(tem, "insert into notes (body) values ('committed')");
    });
    const rows = await sqlRows<{ body: string }>(orm.em.fork(), "select body from notes where body in ('rolled back', 'committed')");
    expect(rows.map((r) => r.body)).toEqual(['committed']);
  });

  it('refuses a statement on a transaction that has ended instead of running it outside', async () => {
    let ended: Parameters<typeof sqlRows>[0] | null = null;
    await orm.em.fork().transactional(async (tem) => {
      ended = tem;
    });
    await expect(sqlRows(ended!, "insert into notes (body) values ('late')")).rejects.toThrow(/already ended/);
    const [late] = await sqlRows<{ n: number }>(orm.em.fork(), "select count(*)::int as n from notes where body = 'late'");
    expect(late.n).toBe(0);
  });

  it("a statement in a transaction whose BEGIN lost its connection names that loss, not a caller's bug", async () => {
    // the query builder hands the transaction out before its BEGIN has answered; this one's never does
    closeAfterSending(/^BEGIN/i);
    const em = orm.em.fork();
    await em.begin();
    await new Promise((r) => setTimeout(r, 300));
    const err = await sqlRows(em, "insert into notes (body) values ('after a lost begin')").catch((e: unknown) => e);
    expect(String(err)).toMatch(/transaction of this statement failed: .*Connection terminated/);
    expect(connectionLoss(err)).toBe('lost');
    await em.rollback().catch(() => undefined);
    const [n] = await sqlRows<{ n: number }>(orm.em.fork(), "select count(*)::int as n from notes where body = 'after a lost begin'");
    expect(n.n).toBe(0);
  });

  it('runs a named statement again on the same connection, and a driver error keeps its code', async () => {
    for (let i = 0; i < 3; i++) {
      const [r] = await sqlRows<{ v: number }>(orm.em.fork(), 'select ?::int + 1 as v', [i], { prepared: true });
      expect(r.v).toBe(i + 1);
    }
    await expect(sqlRows(orm.em.fork(), 'insert into notes (id, body) values (?, ?), (?, ?)', [900, 'a', 900, 'b'])).rejects.toMatchObject({ code: '23505' });
  });
});
