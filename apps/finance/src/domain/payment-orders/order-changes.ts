import { ConflictError, sqlRows, type TenantContext } from '@ledgerline/service-kit';
import type { PaymentOrder } from '@ledgerline/contracts';
import { publish, readPaymentOrder } from './orders.js';

/*
 * A payment order moved on (issue 76): sent, cancelled while open, and its items paid by the
 * payments matched to their bills.
 */

export async function markPaymentOrderSent(ctx: TenantContext, id: number): Promise<PaymentOrder> {
  const order = await readPaymentOrder(ctx, id, true);
  if (order.status === 'sent') return order;
  if (order.status !== 'open') throw new ConflictError(`Payment order ${id} is ${order.status}`, 'payment_order_not_open');
  await sqlRows(ctx.em, `update payment_orders set status = 'sent', sent_at = ?, updated_at = ?, version = version + 1 where org_id = ? and id = ?`, [ctx.now(), ctx.now(), ctx.orgId, id]);
  return publish(ctx, await readPaymentOrder(ctx, id));
}

export async function cancelPaymentOrder(ctx: TenantContext, id: number): Promise<PaymentOrder> {
  const order = await readPaymentOrder(ctx, id, true);
  if (order.status === 'cancelled') return order;
  if (order.status !== 'open') {
    throw new ConflictError(`Payment order ${id} is ${order.status}: the bank has it, so it can no longer be cancelled here`, 'payment_order_not_open');
  }
  await sqlRows(ctx.em, `update payment_order_items set status = 'cancelled' where org_id = ? and order_id = ? and status = 'ordered'`, [ctx.orgId, id]);
  await sqlRows(ctx.em, `update payment_orders set status = 'cancelled', cancelled_at = ?, updated_at = ?, version = version + 1 where org_id = ? and id = ?`, [ctx.now(), ctx.now(), ctx.orgId, id]);
  return publish(ctx, await readPaymentOrder(ctx, id));
}

/**
 * A payment matched to a bill (or taken back from it) moves the bill's open order item: paid once
 * payments of at least its amount came, ordered again when one is taken back below it. Its order
 * follows: sent once a payment of it arrived, completed when no item waits any more.
 */
export async function settleOrderedBill(ctx: TenantContext, p: { billId: number; paymentId: number; amount: string; sign: 1 | -1 }): Promise<void> {
  const rows =
    p.sign === 1
      ? await sqlRows<{ order_id: string }>(
          ctx.em,
          `update payment_order_items set amount_paid = amount_paid + ?, payment_ids = array_append(payment_ids, ?::bigint),
             status = case when amount_paid + ? >= amount then 'paid' else status end
           where org_id = ? and bill_id = ? and status = 'ordered' returning order_id`,
          [p.amount, p.paymentId, p.amount, ctx.orgId, p.billId],
        )
      : await sqlRows<{ order_id: string }>(
          ctx.em,
          `update payment_order_items i set amount_paid = i.amount_paid - ?, payment_ids = array_remove(i.payment_ids, ?::bigint),
             status = case when i.status = 'paid' and i.amount_paid - ? < i.amount
                            and not exists (select 1 from payment_order_items j where j.org_id = i.org_id and j.bill_id = i.bill_id and j.status = 'ordered')
                           then 'ordered' else i.status end
           where i.org_id = ? and i.bill_id = ? and ?::bigint = any(i.payment_ids) returning i.order_id`,
          [p.amount, p.paymentId, p.amount, ctx.orgId, p.billId, p.paymentId],
        );
  for (const orderId of new Set(rows.map((r) => Number(r.order_id)))) {
    await sqlRows(
      ctx.em,
      `update payment_orders o set
         status = case when exists (select 1 from payment_order_items i where i.order_id = o.id and i.status = 'ordered')
                       then 'sent' else 'completed' end,
         sent_at = coalesce(sent_at, ?),
         completed_at = case when exists (select 1 from payment_order_items i where i.order_id = o.id and i.status = 'ordered') then null else coalesce(completed_at, ?) end,
         updated_at = ?, version = version + 1
       where org_id = ? and id = ? and status <> 'cancelled'`,
      [ctx.now(), ctx.now(), ctx.now(), ctx.orgId, orderId],
    );
    await publish(ctx, await readPaymentOrder(ctx, orderId));
  }
}
