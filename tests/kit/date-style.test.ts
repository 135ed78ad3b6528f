import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { defineEntity, p } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { dropDatabase, entityColumns, initOrm, readEntity, sqlRows } from '@ledgerline/service-kit';
import { isolation } from '../support/stack.js';

/*
 * Reads take a `date` as the server's text and that text as `YYYY-MM-DD` (entityColumns selects
 * the column as it is). A database configured with another DateStyle must not change what a
 * document's day reads as: every session of the kit starts with DateStyle ISO.
 */

const DatedSchema = defineEntity({
  name: 'Dated',
  tableName: 'dated',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    day: p.string().columnType('date'),
  },
});

const env = isolation();
const databaseName = `${env.DATABASE_PREFIX}datestyle`;
let orm: MikroORM;

beforeAll(async () => {
  const setup = await initOrm({ databaseUrl: env.DATABASE_URL, databaseName, entities: [], migrations: [], poolMax: 1 });
  await sqlRows(setup.em.fork(), "create table dated (id serial primary key, org_id int not null, day date not null); insert into dated (org_id, day) values (1, '2026-01-05')");
  await sqlRows(setup.em.fork(), `alter database "${databaseName}" set DateStyle = 'SQL, DMY'`);
  await setup.close(true);
  // new sessions, which start with the database's DateStyle unless told otherwise
  orm = await initOrm({ databaseUrl: env.DATABASE_URL, databaseName, entities: [DatedSchema], migrations: [], poolMax: 2 });
});
afterAll(async () => {
  await orm?.close(true);
  await dropDatabase(env.DATABASE_URL, databaseName);
});

describe('a date read under a database configured with another DateStyle', () => {
  it('a plain session of that database writes it day first (the setting is in force)', async () => {
    const url = new URL(env.DATABASE_URL);
    url.pathname = `/${databaseName}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      expect((await client.query('select day::text as day from dated')).rows[0].day).toBe('05/01/2026');
    } finally {
      await client.end();
    }
  });

  it("the kit's sessions read it as YYYY-MM-DD, by a plain statement and as an entity's row", async () => {
    const em = orm.em.fork();
    expect(await sqlRows(em, 'select day from dated')).toEqual([{ day: '2026-01-05' }]);
    expect(entityColumns(em, DatedSchema)).toContain('day as "day"');
    expect(await readEntity(em, DatedSchema, 1, 1)).toEqual({ id: 1, orgId: 1, day: '2026-01-05' });
  });

  it("the kit's sessions compile no statement just in time (the reports' aggregates paid more than they gained)", async () => {
    expect(await sqlRows(orm.em.fork(), 'show jit')).toEqual([{ jit: 'off' }]);
  });
});
