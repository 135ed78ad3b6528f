import { RPC_SUBJECTS, openForeignRequestSchema, type ForeignBalancesAnswer } from '@ledgerline/contracts';
import { legalCurrencyOf, sqlRows, type ResponderDefinition, type TenantScope } from '@ledgerline/service-kit';

/**
 * `rpc.finance.bank.foreign_balances` (a year-end revaluation): each bank account's balance in a
 * foreign currency at the end of the day — the transactions booked by then (date_accounting,
 * else date_transaction), as the ledger posts them on 221 — and their legal value as booked.
 */
export async function foreignBalances(scope: TenantScope, raw: unknown): Promise<ForeignBalancesAnswer> {
  const { date } = openForeignRequestSchema.parse(raw);
  const legalCurrency = await legalCurrencyOf(scope);
  const rows = await sqlRows<{ account_number: string | null; currency: string; balance: string; balance_leg: string }>(
    scope.em,
    `select account_number, trim(currency) as currency, sum(amount)::text as balance, sum(amount_leg)::text as balance_leg
       from bank_transactions
      where org_id = ? and trim(currency) <> ? and coalesce(date_accounting, date_transaction) <= ?::date and amount_leg is not null
      group by account_number, trim(currency)
     having sum(amount) <> 0 or sum(amount_leg) <> 0
      order by account_number nulls first, 2`,
    [scope.orgId, legalCurrency, date],
  );
  return { balances: rows };
}

export const financeResponders = (): ResponderDefinition[] => [
  { subject: RPC_SUBJECTS.financeForeignBalances, handle: (em, data, orgId) => foreignBalances({ em, orgId }, data) },
];
