import { SUBJECTS, type PaymentOrder, type PaymentOrderListQuery } from '@ledgerline/contracts';
import { NotFoundError, sqlRows, toWire, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import type { OrderAccount } from './accounts.js';

/*
 * Payment orders (issue 76, decision 239): the bills a user chose, each for its amount_due, as one
 * batch for the bank. Purchase owns the bills and answers what an order needs of them
 * (`rpc.purchase.bills.payable`); finance keeps the order, writes it as pain.001 or ABO, and clears
 * its items as the statement's payments are matched to the bills. Every change is published as
 * `finance.payment_order.updated` (purchase shows the order on the bill from it). This module reads
 * and publishes them; make-order.ts makes one, order-changes.ts moves it on, order-file.ts writes it.
 */

interface OrderRow {
  id: string;
  status: PaymentOrder['status'];
  version: number;
  currency: string;
  execution_date: string;
  total_amount: string;
  from_account: OrderAccount;
  message_id: string;
  created_ms: string;
  updated_ms: string;
  sent_ms: string | null;
  completed_ms: string | null;
  cancelled_ms: string | null;
}

interface ItemRow {
  order_id: string;
  line: number;
  bill_id: string;
  bill_no: string;
  vendor_doc_no: string | null;
  vendor_name: string;
  amount: string;
  account: OrderAccount;
  variable_symbol: string | null;
  constant_symbol: string | null;
  specific_symbol: string | null;
  message: string | null;
  end_to_end_id: string;
  risk_accepted: boolean;
  status: PaymentOrder['items'][number]['status'];
  amount_paid: string;
}

const ORDER_COLUMNS = `id, status, version, currency, execution_date::text as execution_date, total_amount::text as total_amount, from_account, message_id,
  (extract(epoch from created_at) * 1000)::bigint as created_ms, (extract(epoch from updated_at) * 1000)::bigint as updated_ms,
  (extract(epoch from sent_at) * 1000)::bigint as sent_ms, (extract(epoch from completed_at) * 1000)::bigint as completed_ms,
  (extract(epoch from cancelled_at) * 1000)::bigint as cancelled_ms`;
const ITEM_COLUMNS = `order_id, line, bill_id, bill_no, vendor_doc_no, vendor_name, amount::text as amount, account, variable_symbol, constant_symbol,
  specific_symbol, message, end_to_end_id, risk_accepted, status, amount_paid::text as amount_paid`;

const at = (ms: string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
const money = (v: string) => toWire(v)!;

function view(o: OrderRow, items: ItemRow[]): PaymentOrder {
  return {
    id: Number(o.id),
    status: o.status,
    version: o.version,
    currency: o.currency.trim(),
    execution_date: o.execution_date,
    total_amount: money(o.total_amount),
    from_account: o.from_account,
    message_id: o.message_id,
    items: items.map((i) => ({
      bill_id: Number(i.bill_id),
      bill_no: i.bill_no,
      vendor_doc_no: i.vendor_doc_no,
      vendor_name: i.vendor_name,
      amount: money(i.amount),
      account: i.account,
      variable_symbol: i.variable_symbol,
      constant_symbol: i.constant_symbol,
      specific_symbol: i.specific_symbol,
      message: i.message,
      end_to_end_id: i.end_to_end_id,
      risk_accepted: i.risk_accepted,
      status: i.status,
      amount_paid: money(i.amount_paid),
    })),
    created_at: at(o.created_ms)!,
    updated_at: at(o.updated_ms)!,
    sent_at: at(o.sent_ms),
    completed_at: at(o.completed_ms),
    cancelled_at: at(o.cancelled_ms),
  };
}

async function itemsOf(scope: TenantScope, ids: number[]): Promise<Map<number, ItemRow[]>> {
  const byOrder = new Map<number, ItemRow[]>();
  if (ids.length === 0) return byOrder;
  const rows = await sqlRows<ItemRow>(scope.em, `select ${ITEM_COLUMNS} from payment_order_items where org_id = ? and order_id = any(?::bigint[]) order by order_id, line`, [scope.orgId, ids]);
  for (const r of rows) byOrder.set(Number(r.order_id), [...(byOrder.get(Number(r.order_id)) ?? []), r]);
  return byOrder;
}

/** The order of the organisation, locked for a change when `forUpdate`; 404 when it has none by the id. */
export async function readPaymentOrder(scope: TenantScope, id: number, forUpdate = false): Promise<PaymentOrder> {
  const [row] = await sqlRows<OrderRow>(scope.em, `select ${ORDER_COLUMNS} from payment_orders where org_id = ? and id = ?${forUpdate ? ' for update' : ''}`, [scope.orgId, id]);
  if (!row) throw new NotFoundError(`Payment order ${id} not found`, 'payment_order_not_found');
  return view(row, (await itemsOf(scope, [id])).get(id) ?? []);
}

export async function listPaymentOrders(scope: TenantScope, q: PaymentOrderListQuery): Promise<{ rows: PaymentOrder[]; total: number }> {
  const conditions = ['org_id = ?'];
  const params: unknown[] = [scope.orgId];
  if (q.status?.length) {
    conditions.push('status = any(?::text[])');
    params.push(q.status);
  }
  if (q.bill_id) {
    conditions.push('id in (select order_id from payment_order_items where org_id = ? and bill_id = ?)');
    params.push(scope.orgId, q.bill_id);
  }
  const where = conditions.join(' and ');
  const [{ n }] = await sqlRows<{ n: string }>(scope.em, `select count(*) as n from payment_orders where ${where}`, params);
  const rows = await sqlRows<OrderRow>(scope.em, `select ${ORDER_COLUMNS} from payment_orders where ${where} order by id limit ? offset ?`, [...params, q.take, q.from]);
  const items = await itemsOf(scope, rows.map((r) => Number(r.id)));
  return { rows: rows.map((r) => view(r, items.get(Number(r.id)) ?? [])), total: Number(n) };
}

/** Publishes the order as it now stands (`finance.payment_order.updated`). */
export async function publish(ctx: TenantContext, order: PaymentOrder): Promise<PaymentOrder> {
  await ctx.emit({ subject: SUBJECTS.financePaymentOrderUpdated, orgId: ctx.orgId, resource: `payment_order:${order.id}`, data: order });
  return order;
}
