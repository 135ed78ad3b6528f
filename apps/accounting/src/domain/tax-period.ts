import { lockDateOf, organisationReplica, type TenantScope } from '@ledgerline/service-kit';
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
