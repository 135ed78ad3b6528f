import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { PASS_SQL, initOrm, relayConnectionConfig } from '@ledgerline/service-kit';
import { DATABASE_URL, dropIsolation, isolation } from '../support/stack.js';

/*
 * The relay keeps one session for its life and sends the same statement on it every pass, so
 * Postgres soon reuses one generic plan for it, made with the statistics of that moment. Made
 * while the outbox was nearly empty, that plan read the whole table on every pass (a sequential
 * scan to mark failed publishes, with no failure to mark), and the outbox keeps a week of sent
 * rows: on the bench, sales' and accounting's databases read millions of outbox rows and a
 * credit of an invoice cost their Postgres several ms. The relay's session must reach its rows
 * through indexes whatever the plan was made with.
 */
const env = isolation();
const name = `${env.DATABASE_PREFIX}relay_plan`;
let orm: MikroORM;
let url: string;

beforeAll(async () => {
  orm = await initOrm({ databaseUrl: DATABASE_URL, databaseName: name, entities: [], migrations: [] });
  url = orm.config.get('clientUrl')!;
});
afterAll(async () => {
  await orm?.close();
  await dropIsolation(env);
});

describe('outbox relay session', () => {
  it('reads a few index pages a pass with the plan it made when the outbox was empty, after the outbox grew', async () => {
    const relay = new pg.Client(relayConnectionConfig(url));
    const other = new pg.Client({ connectionString: url });
    await Promise.all([relay.connect(), other.connect()]);
    try {
      // the plan Postgres settles on after a few passes, made now, while the outbox is empty
      await relay.query('set plan_cache_mode = force_generic_plan');
      await relay.query(`prepare relay_pass(bigint[], bigint[], int) as ${PASS_SQL}`);
      await relay.query(`execute relay_pass('{}', '{}', 200)`);
      // a week of sent events and a few waiting ones
      await other.query(`insert into kit_outbox (event_id, subject, type, org_id, envelope, sent_at)
        select gen_random_uuid(), 'sales.credit_note.posted', 'sales.credit_note.posted', 1,
               jsonb_build_object('data', repeat('x', 400), 'n', n), now() - interval '1 day'
          from generate_series(1, 5000) n`);
      const waiting = await other.query(`insert into kit_outbox (event_id, subject, type, org_id, envelope)
        select gen_random_uuid(), 'sales.credit_note.posted', 'sales.credit_note.posted', 1, '{}'::jsonb from generate_series(1, 3) returning id`);
      const ids = waiting.rows.map((r: { id: string }) => Number(r.id));

      const explained = async (sent: number[], failed: number[]) => {
        // (a utility statement takes no parameters: the ids are numbers, written in)
        const res = await relay.query(`explain (analyze, buffers, format json) execute relay_pass('{${sent.join(',')}}', '{${failed.join(',')}}', 200)`);
        const [{ Plan: plan }] = res.rows[0]['QUERY PLAN'];
        const text = JSON.stringify(plan);
        return { pages: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0), seqScan: text.includes('"Seq Scan"'), rows: plan['Actual Rows'] };
      };
      // a pass that takes the waiting rows, and one that marks them sent and one failed
      const first = await explained([], []);
      expect(first.rows).toBe(3);
      const second = await explained(ids.slice(0, 2), ids.slice(2));
      for (const pass of [first, second]) {
        expect(pass.seqScan).toBe(false);
        // 5000 sent rows fill well over 300 pages; the indexes' few pages are what a pass needs
        expect(pass.pages).toBeLessThan(40);
      }
    } finally {
      await Promise.all([relay.end(), other.end()]);
    }
  });
});
