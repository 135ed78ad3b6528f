import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm, organisationReplicaMigration } from '@ledgerline/service-kit';
import { entities } from '../../apps/sales/src/db/entities.js';
import { migrations } from '../../apps/sales/src/db/migrations.js';
import { entities as purchaseEntities } from '../../apps/purchase/src/db/entities.js';
import { migrations as purchaseMigrations } from '../../apps/purchase/src/db/migrations.js';
import { DATABASE_URL, dropIsolation, isolation } from '../support/stack.js';

/*
 * `sales_0600_json_bodies_open_documents` on a database that already holds documents (decision
 * 130): each body keeps its content as json, and the payment reference it carries is copied into
 * the new column, so bank payments still find the invoices posted before the upgrade. And
 * `purchase_0006_json_lines` (decision 131): a bill's lines, recap and request keep theirs. The
 * later `sales_0700_view_is_body` marks none of them as answered from its stored text.
 */
const env = isolation();
const name = `${env.DATABASE_PREFIX}json_bodies`;
afterAll(async () => {
  await dropIsolation(env);
});

const all = [organisationReplicaMigration, ...migrations];
const upgrade = all.findIndex((m) => m.name === 'sales_0600_json_bodies_open_documents');

async function migrated(list: typeof all, database = name, ofEntities: Parameters<typeof initOrm>[0]['entities'] = entities): Promise<{ orm: MikroORM; db: pg.Client }> {
  const orm = await initOrm({ databaseUrl: DATABASE_URL, databaseName: database, entities: ofEntities, migrations: list });
  const db = new pg.Client({ connectionString: orm.config.get('clientUrl')! });
  await db.connect();
  return { orm, db };
}

describe('the upgrade to json bodies', () => {
  it('keeps every body as it was and fills the payment reference column from it', async () => {
    expect(upgrade).toBeGreaterThan(0);
    const before = await migrated(all.slice(0, upgrade));
    const bodies = [
      { no: 'INV-1', payment_reference: '0000777', customer: { id: 5, business_name: 'Acme s.r.o.' }, items: [{ title: 'Žluťoučký kůň 🐎', amount: '100.00' }] },
      { no: 'INV-2', payment_reference: null, notes: 'quote " and backslash \\ and tab \t' },
      { no: 'CN-1', total_amount: '-121.00' },
    ];
    try {
      expect((await before.db.query(`select data_type from information_schema.columns where table_name = 'sales_documents' and column_name = 'body'`)).rows[0].data_type).toBe('jsonb');
      for (const [i, body] of bodies.entries()) {
        await before.db.query(
          `insert into sales_documents (uid, org_id, doc_type, no, currency, precision, date_issued, subtotal_amount, tax_amount, total_amount, amount_due, payment_status, body)
           values (gen_random_uuid(), 1, $1, $2, 'CZK', 2, date '2026-11-01', 100, 21, 121, 121, 'unpaid', $3::jsonb)`,
          [i === 2 ? 'sales_credit_note' : 'sales_invoice', body.no, JSON.stringify(body)],
        );
      }
    } finally {
      await before.db.end();
      await before.orm.close();
    }

    const after = await migrated(all);
    try {
      const column = (await after.db.query(`select data_type from information_schema.columns where table_name = 'sales_documents' and column_name = 'body'`)).rows[0];
      expect(column.data_type).toBe('json');
      const rows = (await after.db.query('select no, payment_reference, body from sales_documents order by id')).rows;
      expect(rows.map((r) => r.body)).toEqual(bodies);
      expect(rows.map((r) => r.payment_reference)).toEqual(['0000777', null, null]);
      // documents posted before sales_0700 are answered from their parsed body (decision 133)
      expect((await after.db.query('select view_is_body from sales_documents')).rows.map((r) => r.view_is_body)).toEqual([false, false, false]);
      const open = (await after.db.query(`select indexdef from pg_indexes where indexname = 'sales_documents_open'`)).rows;
      expect(open).toHaveLength(1);
    } finally {
      await after.db.end();
      await after.orm.close();
    }
  }, 60_000);

  it("keeps a bill's lines, recap and request as they were", async () => {
    const purchaseAll = [organisationReplicaMigration, ...purchaseMigrations];
    const at = purchaseAll.findIndex((m) => m.name === 'purchase_0006_json_lines');
    expect(at).toBeGreaterThan(0);
    const database = `${env.DATABASE_PREFIX}json_lines`;
    const items = [{ description: 'Papír A4 „80 g“', qty: '2', rate: '100.00', taxes: [{ tax_code: 'S21', tax_rate: '21' }] }];
    const taxes = [{ tax_code: 'S21', tax_base: '200.00', tax_amount: '42.00' }];
    const input = { vendor_doc_no: 'ACME-1', items: [{ description: 'Papír A4 „80 g“', qty: 2, rate: 100 }] };
    const before = await migrated(purchaseAll.slice(0, at), database, purchaseEntities);
    try {
      await before.db.query(
        `insert into purchase_documents (kind, uid, no, org_id, vendor, type, currency, precision, taxes_included, tax_fx_rate, date_issued,
           items, taxes, subtotal_amount, tax_amount, total_amount, amount_due, payment_status, input)
         values ('bill', gen_random_uuid(), 'BILL-1', 1, '{"id": 501}', '{"id": 1}', 'CZK', 2, false, 1, date '2026-03-15',
           $1::jsonb, $2::jsonb, 200, 42, 242, 242, 'unpaid', $3::jsonb)`,
        [JSON.stringify(items), JSON.stringify(taxes), JSON.stringify(input)],
      );
    } finally {
      await before.db.end();
      await before.orm.close();
    }
    const after = await migrated(purchaseAll, database, purchaseEntities);
    try {
      const types = (await after.db.query(`select column_name, data_type from information_schema.columns where table_name = 'purchase_documents' and column_name in ('items', 'taxes', 'input', 'vendor') order by column_name`)).rows;
      expect(types).toEqual([
        { column_name: 'input', data_type: 'json' },
        { column_name: 'items', data_type: 'json' },
        { column_name: 'taxes', data_type: 'json' },
        { column_name: 'vendor', data_type: 'jsonb' },
      ]);
      const [row] = (await after.db.query('select items, taxes, input from purchase_documents')).rows;
      expect(row).toEqual({ items, taxes, input });
    } finally {
      await after.db.end();
      await after.orm.close();
    }
  }, 60_000);
});
