import type { EndpointHandlers } from '@ledgerline/service-kit';
import type { SettingsDeps } from '../resources.js';
import { credentialRoutes } from '../credentials/routes.js';
import { organisationRoutes } from '../organisation/routes.js';
import { templateRoutes } from '../templates/routes.js';
import { webhookRoutes } from '../webhooks/routes.js';
import { exchangeRateRoutes } from '../exchange-rates/routes.js';
import { repoRateRoutes } from '../repo-rates/routes.js';
import { taxFilingRoutes } from '../tax-filing/routes.js';
import { auditRoutes } from '../audit/routes.js';
import { contactRoutes } from '../contacts/routes.js';

/** Every operation the contracts declare for settings, one line per resource folder. */
export function settingsEndpoints(deps: SettingsDeps): EndpointHandlers<'settings'> {
  const { box } = deps.resources;
  return {
    ...credentialRoutes(box, deps.log),
    ...organisationRoutes(box, deps.log),
    ...templateRoutes(),
    ...webhookRoutes(deps.resources.webhooks, () => deps.resources.sender.kick()),
    ...exchangeRateRoutes(),
    ...repoRateRoutes(),
    ...taxFilingRoutes(),
    ...auditRoutes(deps.config.AUDIT_RETENTION > 0),
    ...contactRoutes(deps.resources.registers),
  };
}
