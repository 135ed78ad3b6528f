import type { EntityManager } from '@mikro-orm/postgresql';
import { lockDateOf, organisationReplica, sqlRows, type TenantScope } from '@ledgerline/service-kit';
import { legalCurrencyOf } from './trial-balance.js';

/**
 * What every report of a period says beside its figures (the VAT filings, the profit and loss
 * account, the balance sheet): the legal currency they are in, and whether the books are closed
 * through its last day (decision 156), so the figures are final.
 */
export async function reportPeriodState(scope: TenantScope, q: { date_to: string }, defaultCurrency: string): Promise<{ currency: string; closed: boolean }> {
  const { em, orgId } = scope;
  const replica = await organisationReplica(scope);
  const lockDate = lockDateOf(replica?.profile);
  return { currency: await legalCurrencyOf(scope, defaultCurrency, replica), closed: lockDate !== null && lockDate >= q.date_to };
}

/** +1 for a posting of `PERIOD_TAX_ROWS`' entry `e`, −1 for a reversal: a reversal's tax figures keep the posting's signs. */
export const ENTRY_SIGN = `(case when e.entry_kind = 'reversal' then -1 else 1 end)`;

/**
 * A period's entries (`e`) joined to their tax rows (`t`), entry by entry: the entries by their
 * day (index accounting_transactions_org_date), each one's tax rows by its id
 * (ledger_tax_rows_tx). Bindings: organisation, first and last day. Joined plainly, the planner
 * hashed every tax row of the organisation to meet a month's entries (a second for a month of an
 * organisation with five million tax rows, growing with its years); `offset 0` keeps each side
 * as written, so a period's report reads that period's rows alone (decision 218).
 */
export const PERIOD_TAX_ROWS = `(select * from accounting_transactions where org_id = ? and date_posting >= ?::date and date_posting <= ?::date offset 0) e
    cross join lateral (select * from ledger_tax_rows x where x.transaction_id = e.id and x.org_id = e.org_id offset 0) t`;

/**
 * Reads a tax report in one read-only transaction (its statements see one snapshot), without JIT
 * compilation and with room to sort a month's documents in memory: a month's report of a large
 * organisation runs in a few hundred milliseconds, of which compiling its statements took about
 * 90 ms each, and its sort spilled to disk at the server's default 4 MB (decision 218).
 */
export async function readTaxReport<T>(scope: TenantScope, read: (em: EntityManager) => Promise<T>): Promise<T> {
  return scope.em.transactional(async (tem) => {
    await sqlRows(tem, 'set transaction read only');
    await sqlRows(tem, `select set_config('jit', 'off', true), set_config('work_mem', '32MB', true)`);
    return read(tem);
  });
}
