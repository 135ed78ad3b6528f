import { dropDatabase, initOrm, serviceMigrations, tenantEm } from '@ledgerline/service-kit';
import { accountingService } from '../service.js';
import { trialBalanceFigures } from '../domain/trial-balance.js';

/**
 * Trial balance over 1,000,000 ledger rows (plus another organisation's million): seeds a
 * scratch database, times POST /v1/reporting/financial/trial-balance/{book_id}/export/{format}'s aggregate, drops the database. `tsx src/cli/bench-trial-balance.ts`
 */
async function main() {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `acc_bench_${Date.now().toString(36)}`;
  const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
  const orm = await initOrm({ databaseUrl: url, databaseName: name, entities: accountingService.entities, migrations: serviceMigrations(accountingService), liveSql: accountingService.liveSql });
  try {
    const conn = orm.em.getConnection();
    const t0 = Date.now();
    await conn.execute(`
      set session_replication_role = replica;
      insert into accounting_transactions (uid, org_id, book_id, type, source_type, source_id, date_posting, currency, legal_currency, total)
        select gen_random_uuid(), o, 1, 'sales_invoice', 'sales_invoice', g, date '2023-01-01' + (g % 1000), 'CZK', 'CZK', 121
        from generate_series(1, ${rows / 2}) g, (values (1), (2)) v(o);
      insert into ledger_rows (org_id, transaction_id, book_id, ord, role, date_posting, gl_account_number, debit, credit)
        select t.org_id, t.id, 1, k, 'x', t.date_posting, (array['311','604','343','221','321','504','518','568'])[1 + ((t.id + k) % 8)],
               case when k = 1 then 121 else 0 end, case when k = 1 then 0 else 60.5 end
        from accounting_transactions t, generate_series(1, 2) k;
      set session_replication_role = origin;
      select ledger_day_balances_refresh(1);
      select ledger_day_balances_refresh(2);`);
    await conn.execute('vacuum analyze ledger_rows'); // as autovacuum leaves a steady-state table
    console.log(`seeded ${rows * 2} rows (2 organisations) in ${Date.now() - t0} ms`);
    const em = tenantEm(orm, 1);
    for (const q of [
      { bookId: 1, today: '2025-12-31' },
      { bookId: 1, dateFrom: '2024-06-01', dateTo: '2024-06-30', today: '2025-12-31' },
      { bookId: 1, dateFrom: '2025-01-01', dateTo: '2025-09-30', accountFrom: '300', accountTo: '399', today: '2025-12-31' },
    ]) {
      for (let i = 0; i < 3; i++) {
        const t = Date.now();
        const out = await trialBalanceFigures({ em: em, orgId: 1 }, q);
        console.log(`${JSON.stringify(q)} → ${out.length} accounts in ${Date.now() - t} ms`);
      }
    }
  } finally {
    await orm.close(true);
    await dropDatabase(url, name);
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
