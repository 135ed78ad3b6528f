import type { EntityManager } from '@mikro-orm/postgresql';
import { SUBJECTS, financePaymentOrderUpdatedEventSchema, payableBillsRequestSchema, type PayableBill } from '@ledgerline/contracts';
import { paymentStatus } from '@ledgerline/documents';
import { PoisonMessageError, dec, sqlRows, type ConsumerDefinition, type OperationContext } from '@ledgerline/service-kit';

/*
 * Bills and the payment orders finance makes of them (issue 76). Finance owns the orders; purchase
 * answers what an order needs of each bill (`rpc.purchase.bills.payable`) and shows the order on
 * the bill from `finance.payment_order.updated`: `payment_order_id`, and `payment_status: ordered`
 * while its item waits for the bank and something is left to pay.
 */

interface PayableRow {
  id: string;
  kind: string;
  no: string;
  vendor_doc_no: string | null;
  currency: string;
  amount_due: string;
  vendor: Record<string, unknown> | null;
  contact_id: string | null;
  bank_account_number: string | null;
  payment_reference: string | null;
  vendor_check: { status?: string; reasons?: string[] } | null;
}

/** Answer of `rpc.purchase.bills.payable`: one entry per id asked, in order. */
export async function payableBills(em: EntityManager, raw: unknown, orgId: number): Promise<{ bills: PayableBill[] }> {
  const { ids } = payableBillsRequestSchema.parse(raw);
  const rows = await sqlRows<PayableRow>(
    em,
    `select id, kind, no, vendor_doc_no, currency, amount_due::text as amount_due, vendor, contact_id, bank_account_number, payment_reference, vendor_check
       from purchase_documents where org_id = ? and id = any(?::bigint[])`,
    [orgId, ids],
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return {
    bills: ids.map((id): PayableBill => {
      const r = byId.get(id);
      if (!r) {
        return { id, found: false, kind: null, no: null, vendor_doc_no: null, currency: null, amount_due: null, vendor: null, contact_id: null, bank_account_number: null, payment_reference: null, vendor_check_status: null, vendor_check_reasons: [] };
      }
      return {
        id,
        found: true,
        kind: r.kind,
        no: r.no,
        vendor_doc_no: r.vendor_doc_no,
        currency: r.currency.trim(),
        amount_due: r.amount_due,
        vendor: r.vendor,
        contact_id: r.contact_id === null ? null : Number(r.contact_id),
        bank_account_number: r.bank_account_number,
        payment_reference: r.payment_reference,
        vendor_check_status: r.vendor_check?.status ?? null,
        vendor_check_reasons: r.vendor_check?.reasons ?? [],
      };
    }),
  };
}

/** The status a bill's figures give (what it is once no order item waits for it). */
const settledStatus = (row: { total_amount: string; amount_paid: string }) => paymentStatus(row.total_amount, row.amount_paid);

/**
 * One bill as an order's item leaves it: `ordered` puts it in the order (and, with something left
 * to pay, in payment_status ordered); `paid` keeps the order on the bill and gives the status back
 * to its figures; a cancelled item or order takes the order off the bill (if it is still the one
 * the bill names).
 */
async function applyItem(em: EntityManager, orgId: number, orderId: number, billId: number, state: 'ordered' | 'paid' | 'cancelled'): Promise<void> {
  const [row] = await sqlRows<{ total_amount: string; amount_paid: string; amount_due: string; payment_order_id: string | null }>(
    em,
    `select total_amount::text as total_amount, amount_paid::text as amount_paid, amount_due::text as amount_due, payment_order_id
       from purchase_documents where org_id = ? and id = ? and kind in ('bill', 'advance') for update`,
    [orgId, billId],
  );
  if (!row) return;
  if (state === 'ordered') {
    const status = dec(row.amount_due).gt(0) ? 'ordered' : settledStatus(row);
    await sqlRows(em, `update purchase_documents set payment_order_id = ?, payment_order_open = true, payment_status = ?, updated_at = now() where org_id = ? and id = ?`, [orderId, status, orgId, billId]);
    return;
  }
  // an older order's news never undoes what a newer order did to the bill
  if (row.payment_order_id !== null && Number(row.payment_order_id) !== orderId) return;
  await sqlRows(em, `update purchase_documents set payment_order_id = ?, payment_order_open = false, payment_status = ?, updated_at = now() where org_id = ? and id = ?`, [
    state === 'paid' ? orderId : null,
    settledStatus(row),
    orgId,
    billId,
  ]);
}

/** `finance.payment_order.updated`, in stream order (one order's versions one after another). */
export function paymentOrderConsumer(): ConsumerDefinition {
  return {
    name: 'purchase-finance-payment-order-updated',
    subject: SUBJECTS.financePaymentOrderUpdated,
    handle: async (ctx, event) => {
      if (ctx.orgId === null) throw new PoisonMessageError('finance.payment_order.updated without an organisation');
      const parsed = financePaymentOrderUpdatedEventSchema.safeParse(event.data);
      if (!parsed.success) throw new PoisonMessageError(`invalid finance.payment_order.updated data: ${parsed.error.message}`);
      const order = parsed.data;
      for (const item of order.items) {
        const state = order.status === 'cancelled' ? 'cancelled' : item.status;
        await applyItem(ctx.em, ctx.orgId, order.id, item.bill_id, state);
      }
    },
  };
}

/**
 * After a payment moved a bill's figures (the shared rule gives the status back to them): a bill
 * whose order item still waits, with something left to pay, stays ordered.
 */
export async function keepOrdered(ctx: OperationContext, billId: number): Promise<void> {
  await sqlRows(ctx.em, `update purchase_documents set payment_status = 'ordered' where org_id = ? and id = ? and payment_order_open and amount_due > 0`, [ctx.orgId, billId]);
}
