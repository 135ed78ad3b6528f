import { RPC_SUBJECTS, hostingIntegrationAnswerSchema, type FinancePaymentMatchedEvent, type HostingOrder, type HostingOrderRequestBody, type InvoiceRequest } from '@ledgerline/contracts';
import { AppError, BusinessRuleError, NotFoundError, UpstreamError, sqlRows, toWire, type OperationContext, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { withContactParty } from '@ledgerline/posted-documents';
import { issueProforma, readProforma } from '../advances/proformas.js';
import { INVOICES } from '../invoices/invoice-kind.js';
import { postSalesDocument } from '../sales-documents/post.js';

/*
 * Orders from a hosting provider (issue 75, part 5): the integration's `create_invoice_after`
 * decides the documents. `payment`: the order gets a proforma asking for the money, and the
 * payment that pays it in full brings the invoice deducting it, in the transaction that applies
 * the payment; otherwise the order is invoiced at once. An order is recorded once per
 * (integration, order id): a repeat answers what the first brought about.
 */

interface OrderRow {
  id: string;
  integration_id: string;
  order_id: string;
  create_invoice_after: 'order' | 'payment';
  proforma_id: string | null;
  invoice_id: string | null;
  invoice_no: string | null;
  created_at: Date;
}

const ORDER_COLUMNS = `o.id, o.integration_id, o.order_id, o.create_invoice_after, o.proforma_id, o.invoice_id,
  (select no from sales_documents d where d.org_id = o.org_id and d.id = o.invoice_id) as invoice_no, o.created_at`;

async function orderView(scope: TenantScope, row: OrderRow): Promise<HostingOrder> {
  const proforma = row.proforma_id != null ? await readProforma(scope, Number(row.proforma_id)) : null;
  return {
    id: Number(row.id),
    integration_id: row.integration_id,
    order_id: row.order_id,
    create_invoice_after: row.create_invoice_after,
    status: row.invoice_id != null ? 'invoiced' : 'awaiting_payment',
    proforma: proforma
      ? {
          id: Number(proforma.id),
          no: String(proforma.no),
          variable_symbol: (proforma.variable_symbol as string | null) ?? null,
          status: proforma.status,
          total_amount: toWire(String(proforma.total_amount))!,
          amount_due: toWire(String(proforma.amount_due))!,
        }
      : null,
    invoice: row.invoice_id != null ? { id: Number(row.invoice_id), no: row.invoice_no ?? '' } : null,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export async function getHostingOrder(scope: TenantScope, id: number): Promise<HostingOrder> {
  const [row] = await sqlRows<OrderRow>(scope.em, `select ${ORDER_COLUMNS} from hosting_orders o where o.org_id = ? and o.id = ?`, [scope.orgId, id]);
  if (!row) throw new NotFoundError(`No hosting order ${id} in this organisation`, 'hosting_order_not_found');
  return orderView(scope, row);
}

/** When the integration invoices: asked of settings, which owns it; an unknown integration is 422. */
async function invoicingOf(ctx: TenantContext, integrationId: string): Promise<'order' | 'payment'> {
  const answer = hostingIntegrationAnswerSchema.safeParse(await ctx.ask(RPC_SUBJECTS.settingsHostingIntegration, { integration_id: integrationId }));
  if (!answer.success) throw new UpstreamError(502, 'settings', 'unreadable hosting integration answer');
  if (!answer.data.found) {
    throw new BusinessRuleError(`No hosting integration ${integrationId} in this organisation`, 'hosting_integration_not_found', [
      { path: 'integration_id', message: 'no such hosting integration (PUT /v1/settings/integrations/cz/hosting/{id})', code: 'hosting_integration_not_found' },
    ]);
  }
  return answer.data.create_invoice_after === 'payment' ? 'payment' : 'order';
}

/** POST /v1/sales/hosting-orders. */
export async function createHostingOrder(ctx: TenantContext, body: HostingOrderRequestBody): Promise<HostingOrder> {
  const { integration_id: integrationId, order_id: orderId, ...rest } = body;
  const after = await invoicingOf(ctx, integrationId);
  const input = (await withContactParty(ctx, { ...rest, order_reference: rest.order_reference ?? orderId }, 'customer')) as unknown as InvoiceRequest;
  // everything is written where its document is (the series' commit group, or its own
  // transaction for a document that states its number); the order's row first: a concurrent
  // repeat waits on its key, then finds it
  const lane = after === 'payment' ? 'sales_proforma' : 'sales_invoice';
  const tx = (input.no != null && input.no.trim() !== '' ? await ctx.inOwnTransaction() : await ctx.inCommitGroup(lane)) as TenantContext;
  const [created] = await sqlRows<{ id: string }>(
    tx.em,
    `insert into hosting_orders (org_id, integration_id, order_id, create_invoice_after, request) values (?, ?, ?, ?, ?::json)
     on conflict (org_id, integration_id, order_id) do nothing returning id`,
    [ctx.orgId, integrationId, orderId, after, JSON.stringify(input)],
  );
  if (!created) {
    const [seen] = await sqlRows<{ id: string }>(tx.em, 'select id from hosting_orders where org_id = ? and integration_id = ? and order_id = ?', [ctx.orgId, integrationId, orderId]);
    return getHostingOrder(tx, Number(seen.id));
  }
  if (after === 'payment') {
    const proforma = await issueProforma(tx, input);
    await sqlRows(tx.em, 'update hosting_orders set proforma_id = ? where org_id = ? and id = ?', [Number(proforma.id), ctx.orgId, Number(created.id)]);
  } else {
    const { document } = await postSalesDocument(tx, INVOICES, input);
    await sqlRows(tx.em, 'update hosting_orders set invoice_id = ? where org_id = ? and id = ?', [document.id, ctx.orgId, Number(created.id)]);
  }
  return getHostingOrder(tx, Number(created.id));
}

/**
 * After a payment of a proforma is applied: when it pays an order's proforma in full, the order's
 * invoice, deducting the proforma, dated the payment's day. An invoice that cannot be issued (its
 * period closed meanwhile) leaves the order awaiting it and the payment applied.
 */
export async function invoicePaidOrder(ctx: OperationContext, proformaId: number, payment: FinancePaymentMatchedEvent): Promise<void> {
  const tenant = ctx as TenantContext;
  const [order] = await sqlRows<{ id: string; request: string }>(
    ctx.em,
    'select id, request::text as request from hosting_orders where org_id = ? and proforma_id = ? and invoice_id is null for update',
    [tenant.orgId, proformaId],
  );
  if (!order) return;
  const proforma = await readProforma(tenant, proformaId);
  if (proforma.status !== 'paid') return;
  const request = JSON.parse(order.request) as InvoiceRequest;
  await sqlRows(ctx.em, 'savepoint hosting_invoice', []);
  try {
    const { document } = await postSalesDocument(tenant, INVOICES, {
      ...request,
      date_issued: payment.date,
      date_taxable: payment.date,
      date_due: payment.date,
      advances: [{ proforma_id: proformaId }],
    });
    await sqlRows(ctx.em, 'update hosting_orders set invoice_id = ? where org_id = ? and id = ?', [document.id, tenant.orgId, Number(order.id)]);
    await sqlRows(ctx.em, 'release savepoint hosting_invoice', []);
  } catch (e) {
    // a refusal (4xx) of the invoice; anything else is the consumer's to retry
    if (!(e instanceof AppError) || e.status >= 500) throw e;
    await sqlRows(ctx.em, 'rollback to savepoint hosting_invoice', []);
    ctx.log.warn('hosting order left awaiting its invoice', { order_id: Number(order.id), proforma_id: proformaId, code: e.code, detail: e.message });
  }
}
