import { Dec } from '@ledgerline/core/money';
import { sqlRows, type TenantScope } from '@ledgerline/service-kit';
import { orderAccount, type OrderAccount } from './accounts.js';

/*
 * The statement's payments of ordered bills (issue 76): a movement of money out that carries an
 * open order item's amount and currency, and its end-to-end id, its variable symbol or its account,
 * pays that item's bill. One item is paid by one movement of a statement; a movement that fits
 * several items of different bills is left to the other clues (the vendor bills' finder).
 */

export interface OrderedMovement {
  amount: string;
  currency: string;
  variableSymbol: string | null;
  reference: string | null;
  partnerAccount: string | null;
}

interface OpenItem {
  order_id: string;
  line: number;
  bill_id: string;
  amount: string;
  currency: string;
  variable_symbol: string | null;
  end_to_end_id: string;
  account: OrderAccount;
}

/** For each movement (by index) the bill of the open order item it pays, when exactly one fits. */
export async function orderedBillsPaid(scope: TenantScope, movements: OrderedMovement[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const amounts = [...new Set(movements.filter((m) => Dec(m.amount).lt(0)).map((m) => Dec(m.amount).abs().toFixed(2)))];
  if (amounts.length === 0) return out;
  const items = await sqlRows<OpenItem>(
    scope.em,
    `select i.order_id, i.line, i.bill_id, i.amount::text as amount, i.currency, i.variable_symbol, i.end_to_end_id, i.account
       from payment_order_items i join payment_orders o on o.id = i.order_id
      where i.org_id = ? and i.status = 'ordered' and o.status in ('open', 'sent') and i.amount = any(?::numeric[])
      order by i.order_id, i.line`,
    [scope.orgId, amounts],
  );
  const taken = new Set<string>();
  movements.forEach((m, index) => {
    if (!Dec(m.amount).lt(0)) return;
    const amount = Dec(m.amount).abs();
    const partner = orderAccount(m.partnerAccount)?.iban ?? null;
    const fits = items.filter((i) => {
      if (taken.has(`${i.order_id}:${i.line}`) || i.currency.trim() !== m.currency || !Dec(i.amount).eq(amount)) return false;
      const byReference = m.reference !== null && m.reference.trim() === i.end_to_end_id;
      const bySymbol = i.variable_symbol !== null && m.variableSymbol === i.variable_symbol;
      const byAccount = partner !== null && partner === i.account.iban;
      return byReference || bySymbol || byAccount;
    });
    if (new Set(fits.map((i) => i.bill_id)).size !== 1) return;
    taken.add(`${fits[0].order_id}:${fits[0].line}`);
    out.set(index, Number(fits[0].bill_id));
  });
  return out;
}
