import type { EndpointHandlers, ServiceDeps } from '@ledgerline/service-kit';
import { ledgerRoutes } from '../ledger/routes.js';
import { reportingRoutes } from '../reporting/routes.js';
import { taxRoutes } from '../tax/routes.js';
import { journalRoutes } from '../journal/routes.js';
import { assetRoutes } from '../assets/routes.js';

type AccountingDeps = ServiceDeps & { config: { LEGAL_CURRENCY?: string; ORG_COUNTRY?: string } };

/** Every operation the contracts declare for accounting, one line per resource folder. */
export function accountingEndpoints(deps: AccountingDeps): EndpointHandlers<'accounting'> {
  // the legal currency of an organisation whose profile has not reached the service
  const fallbackCurrency = deps.config.LEGAL_CURRENCY ?? 'CZK';
  // what the ledger posts a journal entry with (the consumers' options)
  const posting = { legalCurrency: fallbackCurrency, orgCountry: deps.config.ORG_COUNTRY ?? 'CZ' };
  return {
    ...ledgerRoutes(fallbackCurrency),
    ...reportingRoutes(fallbackCurrency),
    ...taxRoutes(fallbackCurrency),
    ...journalRoutes(posting),
    ...assetRoutes(posting),
  };
}
