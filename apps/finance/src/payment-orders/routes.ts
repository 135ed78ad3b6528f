import { AppError, BusinessRuleError, negotiate, page, type EndpointHandlers } from '@ledgerline/service-kit';
import { AboRefusal, aboFile } from '../domain/payment-orders/abo.js';
import { pain001Xml } from '../domain/payment-orders/pain001.js';
import { createPaymentOrder } from '../domain/payment-orders/make-order.js';
import { cancelPaymentOrder, markPaymentOrderSent } from '../domain/payment-orders/order-changes.js';
import { orderFileOf } from '../domain/payment-orders/order-file.js';
import { listPaymentOrders, readPaymentOrder } from '../domain/payment-orders/orders.js';

type Operations = 'createPaymentOrder' | 'listPaymentOrders' | 'getPaymentOrder' | 'markPaymentOrderSent' | 'cancelPaymentOrder';

/** What a GET of one order answers: `?format` when given, else by Accept (JSON unless XML is preferred). */
function formatOf(format: string | undefined, accept: string | undefined): 'json' | 'pain.001' | 'abo' {
  if (format === 'json' || format === 'pain.001' || format === 'abo') return format;
  const picked = negotiate(accept, ['application/json', 'application/xml', 'text/xml', 'text/json', 'text/plain'] as const);
  if (picked === null) throw new AppError(406, 'not_acceptable', 'Not acceptable', 'A payment order is answered as application/json or application/xml (pain.001); ?format=abo gives the ABO file');
  return picked === 'application/xml' || picked === 'text/xml' ? 'pain.001' : 'json';
}

/** Payment orders (issue 76): made of bills, read as JSON, pain.001 or ABO, marked sent, cancelled. */
export function paymentOrderRoutes(): Pick<EndpointHandlers<'finance'>, Operations> {
  return {
    createPaymentOrder: ({ ctx, input }) => createPaymentOrder(ctx, input.body),
    listPaymentOrders: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listPaymentOrders(ctx, q);
      return page(rows, total, q.from, q.take);
    },
    getPaymentOrder: async ({ ctx, input }) => {
      const order = await readPaymentOrder(ctx, input.params.id);
      const format = formatOf(input.query.format, ctx.c.req.header('accept'));
      if (format === 'json') return order;
      const file = await orderFileOf(ctx, order);
      if (format === 'pain.001') {
        return ctx.c.body(pain001Xml(file), 200, {
          'content-type': 'application/xml; charset=utf-8',
          'content-disposition': `attachment; filename="payment-order-${order.id}.xml"`,
          'x-content-type-options': 'nosniff',
        });
      }
      let abo: string;
      try {
        abo = aboFile(file);
      } catch (err) {
        if (!(err instanceof AboRefusal)) throw err;
        throw new BusinessRuleError(`Payment order ${order.id} cannot be written as ABO: ${err.message}`, 'abo_not_possible', [{ path: err.path, message: err.message, code: 'abo_not_possible' }]);
      }
      return ctx.c.body(abo, 200, {
        'content-type': 'text/plain; charset=us-ascii',
        'content-disposition': `attachment; filename="payment-order-${order.id}.kpc"`,
        'x-content-type-options': 'nosniff',
      });
    },
    markPaymentOrderSent: ({ ctx, input }) => markPaymentOrderSent(ctx, input.params.id),
    cancelPaymentOrder: ({ ctx, input }) => cancelPaymentOrder(ctx, input.params.id),
  };
}
