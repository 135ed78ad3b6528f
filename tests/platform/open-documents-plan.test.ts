import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm, organisationReplicaMigration, positional } from '@ledgerline/service-kit';
import { openDocumentCandidatesSql, type OpenDocumentTable } from '@ledgerline/posted-documents';
import { entities as salesEntities } from '../../apps/sales/src/db/entities.js';
import { migrations as salesMigrations } from '../../apps/sales/src/db/migrations.js';
import { OPEN_INVOICES } from '../../apps/sales/src/payments/document-find.js';
import { entities as purchaseEntities } from '../../apps/purchase/src/db/entities.js';
import { migrations as purchaseMigrations } from '../../apps/purchase/src/db/migrations.js';
import { OPEN_BILLS } from '../../apps/purchase/src/payments/document-find.js';
import { DATABASE_URL, dropIsolation, isolation } from '../support/stack.js';

/*
 * A bank statement asks, for each incoming or outgoing payment, which open document it pays. An
 * organisation that has issued tens of thousands of documents has a few hundred open at most:
 * the candidates' statement must read those, not walk every document the organisation ever
 * issued (decision 130). Each clue's statement is explained over 20 000 paid documents and five
 * open ones of the organisation, and open ones of another organisation and currency.
 */
const env = isolation();
const orms: MikroORM[] = [];
const clients: pg.Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end()));
  await Promise.all(orms.map((o) => o.close()));
  await dropIsolation(env);
});

async function database(name: string, entities: never[], migrations: never[]): Promise<pg.Client> {
  // as the service runs them: the kit's organisation replica first
  const orm = await initOrm({ databaseUrl: DATABASE_URL, databaseName: `${env.DATABASE_PREFIX}${name}`, entities, migrations: [organisationReplicaMigration as never, ...migrations] });
  orms.push(orm);
  const client = new pg.Client({ connectionString: orm.config.get('clientUrl')! });
  await client.connect();
  clients.push(client);
  return client;
}

/** The candidates' statement of `clue`, explained as it runs: pages read, and whether it walked the table or another index. */
async function explained(db: pg.Client, t: OpenDocumentTable, clue: string, params: unknown[]) {
  const sql = positional(openDocumentCandidatesSql(t, clue)).text;
  const res = await db.query(`explain (analyze, buffers, format json) ${sql}`, params);
  const [{ Plan: plan }] = res.rows[0]['QUERY PLAN'];
  const text = JSON.stringify(plan);
  const indexes = [...text.matchAll(/"Index Name":"([^"]+)"/g)].map((m) => m[1]);
  return { pages: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0), seqScan: text.includes('"Seq Scan"'), indexes, rows: plan['Actual Rows'] as number };
}

describe('finding the open document a payment pays', () => {
  let sales: pg.Client;
  let purchase: pg.Client;
  beforeAll(async () => {
    [sales, purchase] = await Promise.all([
      database('open_sales', salesEntities as never[], salesMigrations as never[]),
      database('open_purchase', purchaseEntities as never[], purchaseMigrations as never[]),
    ]);
    // 20 000 paid invoices of organisation 1, five open ones (the third referenced 0000777), and
    // open ones of organisation 2 and in euros
    await sales.query(`insert into sales_documents (uid, org_id, doc_type, no, currency, precision, date_issued, subtotal_amount, tax_amount,
        total_amount, amount_paid, amount_due, payment_status, payment_reference, body)
      select gen_random_uuid(), case when g > 20010 then 2 else 1 end, 'sales_invoice', 'INV-' || g,
             case when g between 20006 and 20010 then 'EUR' else 'CZK' end, 2, date '2026-11-01', 100, 21, 121,
             case when g <= 20000 then 121 else 0 end, case when g <= 20000 then 0 else 121 end,
             case when g <= 20000 then 'paid' else 'unpaid' end, case when g = 20003 then '0000777' end,
             json_build_object('no', 'INV-' || g, 'notes', repeat('x', 2000))
        from generate_series(1, 20020) g`);
    await sales.query('analyze sales_documents');
    await purchase.query(`insert into purchase_documents (kind, uid, no, org_id, vendor, type, currency, precision, taxes_included, tax_fx_rate,
        date_issued, payment_reference, bank_account_number, items, taxes, subtotal_amount, tax_amount, total_amount, amount_paid, amount_due,
        payment_status, input)
      select 'bill', gen_random_uuid(), 'BILL-' || g, case when g > 20010 then 2 else 1 end, '{"id": 9}', '{}',
             case when g between 20006 and 20010 then 'EUR' else 'CZK' end, 2, false, 1, date '2026-11-01',
             case when g = 20003 then '0000777' end, 'CZ6508000000192000145399', '[]', '[]', 100, 21, 121,
             case when g <= 20000 then 121 else 0 end, case when g <= 20000 then 0 else 121 end,
             case when g <= 20000 then 'paid' else 'unpaid' end, '{}'
        from generate_series(1, 20020) g`);
    await purchase.query('analyze purchase_documents');
  }, 120_000);

  for (const [label, db, t, index] of [
    ['an invoice', () => sales, OPEN_INVOICES, 'sales_documents_open'],
    ['a bill', () => purchase, OPEN_BILLS, 'purchase_documents_open'],
  ] as const) {
    it(`reads only the open documents of the organisation and currency for ${label}`, async () => {
      const clues: Array<[string, unknown[], number]> = [
        [`${t.variableSymbol} = ltrim(?, '0')`, ['777'], 1],
        [`upper(trim(${t.paymentReference})) = upper(trim(?))`, ['0000777'], 1],
        ['amount_due = ?::numeric', ['121'], 5],
        [`amount_due = ?::numeric and ${t.contactId} = any(?::bigint[])`, ['121', '{9}'], label === 'a bill' ? 5 : 0],
      ];
      for (const [clue, params, rows] of clues) {
        const plan = await explained(db(), t, clue, [1, 'CZK', ...params]);
        expect({ clue, rows: plan.rows }).toEqual({ clue, rows });
        expect(plan.seqScan).toBe(false);
        // a clue naming the customer may read the customer's documents instead (sales' customer
        // index, decision 213): as few rows, none of another customer's
        const customerIndex = label === 'an invoice' && clue.includes(t.contactId) ? ['sales_documents_customer'] : null;
        expect([[index], customerIndex]).toContainEqual(plan.indexes);
        // five open rows, each on a page of its own, and the index's few pages; walking the
        // organisation's documents read thousands
        expect(plan.pages).toBeLessThan(30);
      }
    });
  }
});
