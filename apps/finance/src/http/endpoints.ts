import type { EndpointHandlers } from '@ledgerline/service-kit';
import { bankTransactionRoutes } from '../bank-transactions/routes.js';
import { bankStatementRoutes } from '../bank-statements/routes.js';
import { payoutRoutes } from '../payouts/routes.js';
import { paymentOrderRoutes } from '../payment-orders/routes.js';
import { fioRoutes } from '../fio/routes.js';
import type { FioSettings } from '../domain/fio/fio-integrations.js';

/** Every operation the contracts declare for finance, one line per resource folder. */
export function financeEndpoints(fio: FioSettings): EndpointHandlers<'finance'> {
  return {
    ...bankTransactionRoutes(),
    ...bankStatementRoutes(),
    ...payoutRoutes(),
    ...paymentOrderRoutes(),
    ...fioRoutes(fio),
  };
}
