import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { dropDatabase, initOrm, sqlRows } from '@ledgerline/service-kit';
import { oldGenerationAfter } from '../support/heap.js';
import { isolation } from '../support/stack.js';

/*
 * A finished transaction leaves nothing alive (issue 15, decision 127). Every write and every
 * consumer batch runs one; while a knex transaction's listeners stayed attached after it ended,
 * V8 kept each one's graph through young-generation collections, so the old generation filled
 * and a full collection ran every second or two under load. Measured on V8's heap, on the real
 * Postgres.
 */

const env = isolation();
const databaseName = `${env.DATABASE_PREFIX}trxgarbage`;
let orm: MikroORM;

beforeAll(async () => {
  orm = await initOrm({ databaseUrl: env.DATABASE_URL, databaseName, entities: [], migrations: [], poolMax: 2 });
});
afterAll(async () => {
  await orm?.close();
  await dropDatabase(env.DATABASE_URL, databaseName);
});

describe('transactions', () => {
  it('leave no garbage that outlives a young-generation collection, committed or rolled back', async () => {
    // warm-up: the pool's connections and the code's optimisation (unoptimised, V8 keeps more
    // of each transaction for a while whatever is done with it)
    for (let i = 0; i < 5_000; i++) {
      const em = orm.em.fork();
      await em.begin();
      await sqlRows(em, 'select ?::int as n', [i]);
      await em.commit();
    }
    let answered = 0;
    const { fullCollections, grownBytes } = await oldGenerationAfter(async () => {
      for (let i = 0; i < 3_000; i++) {
        const em = orm.em.fork();
        await em.begin();
        const [row] = await sqlRows<{ n: number }>(em, 'select ?::int as n', [i]);
        if (row.n === i) answered++;
        if (i % 3 === 0) await em.rollback();
        else await em.commit();
      }
    });
    expect(answered).toBe(3_000);
    // kept transactions fill the old generation (some 70 MB here), or a full collection runs to clear them
    expect({ majors: fullCollections, grownUnder10Mb: grownBytes < 10e6 }).toEqual({ majors: 0, grownUnder10Mb: true });
  });
});
