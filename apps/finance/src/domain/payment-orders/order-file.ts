import { Dec } from '@ledgerline/core/money';
import type { PaymentOrder } from '@ledgerline/contracts';
import { organisationReplica, type TenantScope } from '@ledgerline/service-kit';
import type { OrderAccount } from './accounts.js';

/** What the bank files are written from: one stored payment order, its items in order. */
export interface OrderFile {
  id: number;
  messageId: string;
  createdAt: Date;
  executionDate: string;
  currency: string;
  /** Σ of the items' amounts, a decimal string with two places. */
  total: string;
  debtor: { name: string; account: OrderAccount };
  items: OrderFileItem[];
}

export interface OrderFileItem {
  line: number;
  /** A decimal string with two places, above zero. */
  amount: string;
  creditor: { name: string; country: string | null; addressLines: string[] };
  account: OrderAccount;
  endToEndId: string;
  message: string | null;
  variableSymbol: string | null;
  constantSymbol: string | null;
  specificSymbol: string | null;
}

/**
 * The end-to-end id of an item: for a Czech domestic payment the symbols as Czech banks carry them
 * from the order to both parties' statements (`/VS…/SS…/KS…`, the Czech Banking Association's
 * layout, which the camt.053 reader here reads back); otherwise, and when the payment has no
 * symbol, the order's own reference for the item.
 */
export function endToEndId(p: { orderId: number; line: number; currency: string; variableSymbol: string | null; specificSymbol: string | null; constantSymbol: string | null }): string {
  const parts = [
    p.variableSymbol ? `VS${p.variableSymbol}` : null,
    p.specificSymbol ? `SS${p.specificSymbol}` : null,
    p.constantSymbol ? `KS${p.constantSymbol.padStart(4, '0')}` : null,
  ].filter(Boolean);
  if (p.currency === 'CZK' && p.variableSymbol) return `/${parts.join('/')}`;
  return `LL-${p.orderId}-${p.line}`;
}

/** What the pain.001 and ABO writers take: the order with the organisation's name as the debtor. */
export async function orderFileOf(scope: TenantScope, order: PaymentOrder): Promise<OrderFile> {
  const org = await organisationReplica(scope);
  return {
    id: order.id,
    messageId: order.message_id,
    createdAt: new Date(order.created_at),
    executionDate: order.execution_date,
    currency: order.currency,
    total: Dec(order.total_amount).toFixed(2),
    debtor: { name: org?.name ?? `Organisation ${scope.orgId}`, account: order.from_account as OrderAccount },
    // the file is the order as it was made (a cancelled order's too: its items are cancelled with it)
    items: order.items.map((item, i) => ({
      line: i + 1,
      amount: Dec(item.amount).toFixed(2),
      creditor: { name: item.vendor_name, country: null, addressLines: [] },
      account: item.account as OrderAccount,
      endToEndId: item.end_to_end_id,
      message: item.message,
      variableSymbol: item.variable_symbol,
      constantSymbol: item.constant_symbol,
      specificSymbol: item.specific_symbol,
    })),
  };
}
