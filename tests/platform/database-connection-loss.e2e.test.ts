import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DATABASE_URL, eventually, startStack, type Stack } from '../support/stack.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * Every database session of sales, accounting and settings ended at once while invoices are
 * being posted through the gateway — what a Postgres restart or failover does to the services
 * (decision 142). No answer is a 500; a 503 `service_unavailable` wrote nothing; every 200 is in
 * the ledger exactly once; the services serve again without a restart.
 */

let stack: Stack;
let admin: pg.Client;

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'accounting'] });
  admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
}, 120_000);
afterAll(async () => {
  await admin?.end();
  await stack?.close();
});

const query = async <T extends pg.QueryResultRow>(database: string, sql: string, params: unknown[] = []): Promise<T[]> => {
  const client = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}${database}`) });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
};

describe('the database sessions of the services ended under load', () => {
  it('answers 200 or a 503 that says what happened, loses no 200 and writes nothing it answered 503 service_unavailable', async () => {
    const answers: Array<{ tag: string; status: number; code?: string; id?: number; after: boolean }> = [];
    let ended = false;
    let running = true;
    let n = 0;
    const worker = async () => {
      while (running) {
        const tag = `db-loss ${n++}`;
        const after = ended;
        const res = await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ notes: tag, date_issued: '2031-03-04' }) });
        const body = await res.json();
        answers.push({ tag, status: res.status, code: body.code, id: res.status === 200 ? body.id : undefined, after });
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    await eventually(async () => answers.filter((a) => a.status === 200).length >= 40, 20_000);
    const databases = ['sales', 'accounting', 'settings'].map((s) => `${stack.env.DATABASE_PREFIX}${s}`);
    const { rowCount } = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = any($1) and pid <> pg_backend_pid()', [databases]);
    expect(rowCount).toBeGreaterThan(3);
    ended = true;
    await eventually(async () => answers.filter((a) => a.after && a.status === 200).length >= 40, 20_000);
    running = false;
    await Promise.all(workers);

    const unexpected = answers.filter((a) => a.status !== 200 && !(a.status === 503 && ['service_unavailable', 'commit_outcome_unknown'].includes(a.code ?? '')));
    expect(unexpected).toEqual([]);

    // a 503 that said nothing was written wrote nothing
    const refused = answers.filter((a) => a.code === 'service_unavailable').map((a) => a.tag);
    const stored = await query<{ notes: string }>('sales', 'select notes from sales_documents where notes = any($1)', [refused]);
    expect(stored).toEqual([]);

    // every 200 reaches the ledger, once
    const ok = answers.filter((a) => a.status === 200).map((a) => a.id!);
    const posted = await eventually(async () => {
      const rows = await query<{ source_id: string; n: number }>(
        'accounting',
        "select source_id, count(*)::int as n from accounting_transactions where source_type = 'sales_invoice' and entry_kind = 'posting' group by source_id",
      );
      const byId = new Map(rows.map((r) => [Number(r.source_id), r.n]));
      return ok.every((id) => byId.has(id)) ? byId : undefined;
    }, 30_000, 200);
    expect(ok.filter((id) => posted.get(id) !== 1)).toEqual([]);
    // an invoice answered with an unknown outcome is posted once if it was made, never twice
    expect([...posted.values()].filter((c) => c !== 1)).toEqual([]);
  }, 90_000);
});
