import { auditEventListQuerySchema, auditEventPageSchema, auditVerificationSchema } from '../audit.js';
import { idPathParams } from '../common.js';
import { exchangeRateFileSchema, exchangeRateImportSchema, exchangeRatePathSchema, exchangeRateQuerySchema, exchangeRateRequestSchema, exchangeRateSchema, exchangeRateTableSchema } from '../exchange-rates.js';
import { repoRateFileSchema, repoRateHistorySchema, repoRateImportQuerySchema, repoRateImportSchema, repoRatePathSchema, repoRateRequestSchema } from '../repo-rates.js';
import { apiKeyCreateSchema, apiKeyCreatedSchema, apiKeyDeletedSchema, apiKeyListQuerySchema, apiKeyPageSchema, apiKeySchema, apiKeyUpdateSchema, bankIntegrationRequestSchema, bankIntegrationSchema, clientDeletedSchema, clientListQuerySchema, clientPageSchema, clientRecordSchema, clientRequestSchema, clientSchema, deliveryConditionListQuerySchema, deliveryConditionPageSchema, hostingIntegrationPathSchema, hostingIntegrationRequestSchema, hostingIntegrationSchema, organisationCreateSchema, organisationCreatedSchema, organisationSchema, organisationUpdateSchema, templateListQuerySchema, templateListSchema, templateRequestSchema, templateSchema, tokenRequestSchema, tokenResponseSchema } from '../settings.js';
import { taxFilingSettingsRequestSchema, taxFilingSettingsSchema } from '../tax-filing.js';
import { webhookCreateSchema, webhookDeletedSchema, webhookDeliveryListQuerySchema, webhookDeliveryPageSchema, webhookDeliveryPathSchema, webhookDeliverySchema, webhookListQuerySchema, webhookPageSchema, webhookSchema, webhookUpdateSchema, webhookWithSecretSchema } from '../webhooks.js';
import { contactDeletedSchema, contactListQuerySchema, contactLookupQuerySchema, contactLookupSchema, contactPageSchema, contactRecordSchema, contactRequestSchema, vatNumberCheckSchema, vatNumberQuerySchema, vatPayerStatusSchema } from '../contacts.js';
import { serviceRoutes } from './spec.js';

/**
 * Settings: the organisation, credentials (API keys, clients, tokens), templates,
 * integrations, webhooks, rates, audit.
 * Every operation here is served by settings, with the `settings` scope unless its row names another;
 * grouped by resource (the OpenAPI tag).
 */
export const settingsRoutes = serviceRoutes('settings', [
  // API keys
  { method: 'GET', path: '/settings/security/api-keys', operationId: 'listApiKeys', summary: 'List API keys', specNo: 1, tag: 'API keys', query: apiKeyListQuerySchema, response: apiKeyPageSchema },
  { method: 'POST', path: '/settings/security/api-keys', operationId: 'createApiKey', summary: 'Create an API key (the secret is returned once)', specNo: 2, tag: 'API keys', body: apiKeyCreateSchema, response: apiKeyCreatedSchema },
  { method: 'GET', path: '/settings/security/api-keys/:id', operationId: 'getApiKey', summary: 'Read an API key', specNo: 3, tag: 'API keys', pathParams: idPathParams, response: apiKeySchema },
  { method: 'PUT', path: '/settings/security/api-keys/:id', operationId: 'updateApiKey', summary: 'Change name, scopes or expiry of an API key', specNo: 4, tag: 'API keys', pathParams: idPathParams, body: apiKeyUpdateSchema, response: apiKeySchema },
  { method: 'DELETE', path: '/settings/security/api-keys/:id', operationId: 'deleteApiKey', summary: 'Delete an API key', specNo: 5, tag: 'API keys', pathParams: idPathParams, response: apiKeyDeletedSchema },
  { method: 'POST', path: '/settings/security/api-keys/:id/revoke', operationId: 'revokeApiKey', summary: 'Revoke an API key', specNo: 6, tag: 'API keys', pathParams: idPathParams, response: apiKeySchema },
  // Integrations
  { method: 'PUT', path: '/settings/integrations/cz/hosting/:id', operationId: 'putHostingIntegration', summary: 'Configure the hosting-provider integration', specNo: 7, tag: 'Integrations', pathParams: hostingIntegrationPathSchema, body: hostingIntegrationRequestSchema, response: hostingIntegrationSchema },
  //   the closing of a year (decision 170): classes 5 and 6 to 710, the result to 431, as one journal entry
  { method: 'POST', path: '/settings/integrations/sk.bank_a', operationId: 'createBankIntegration', summary: 'Configure the bank integration', specNo: 26, tag: 'Integrations', body: bankIntegrationRequestSchema, response: bankIntegrationSchema },
  // Templates
  { method: 'POST', path: '/settings/templates', operationId: 'saveTemplate', bodyRequired: true, summary: 'Save a document template', specNo: 8, tag: 'Templates', body: templateRequestSchema, response: templateSchema },
  { method: 'GET', path: '/lists/all/templates', operationId: 'listTemplates', summary: 'List templates', specNo: 9, tag: 'Templates', query: templateListQuerySchema, response: templateListSchema },
  // Delivery conditions
  { method: 'GET', path: '/settings/delivery-conditions', operationId: 'listDeliveryConditions', repeatable: ['sort'], summary: 'List delivery conditions (Incoterms 2020)', specNo: 12, tag: 'Delivery conditions', query: deliveryConditionListQuerySchema, response: deliveryConditionPageSchema },
  // API clients
  { method: 'POST', path: '/settings/security/clients', operationId: 'createClient', bodyRequired: true, summary: 'Create an API client (the secret is returned once)', specNo: 13, tag: 'API clients', body: clientRequestSchema, response: clientSchema },
  //   an API client's life after creation, as an API key's (decision 149)
  { method: 'GET', path: '/settings/security/clients', operationId: 'listClients', summary: 'List API clients', tag: 'API clients', query: clientListQuerySchema, response: clientPageSchema },
  { method: 'GET', path: '/settings/security/clients/:id', operationId: 'getClient', summary: 'Read an API client', tag: 'API clients', pathParams: idPathParams, response: clientRecordSchema },
  { method: 'POST', path: '/settings/security/clients/:id/revoke', operationId: 'revokeClient', summary: 'Revoke an API client: the token endpoint refuses it and the access tokens it holds stop working at once', tag: 'API clients', pathParams: idPathParams, response: clientRecordSchema },
  { method: 'DELETE', path: '/settings/security/clients/:id', operationId: 'deleteClient', summary: 'Delete an API client (its access tokens stop working at once)', tag: 'API clients', pathParams: idPathParams, response: clientDeletedSchema },
  { method: 'POST', path: '/oauth/token', operationId: 'issueAccessToken', summary: 'Exchange client credentials for an access token', tag: 'API clients', open: true, body: tokenRequestSchema, response: tokenResponseSchema, consumes: ['application/json', 'application/x-www-form-urlencoded'] },
  // Audit trail
  //   an API client's life after creation, as an API key's (decision 149)
  { method: 'GET', path: '/audit-events', operationId: 'listAuditEvents', summary: 'The writes made through the API in every service, newest first: who, what, and the resource before and after (secrets and personal data masked)', tag: 'Audit trail', query: auditEventListQuerySchema, response: auditEventPageSchema },
  { method: 'GET', path: '/audit-events/verify', operationId: 'verifyAuditEvents', summary: "Walk the organisation's audit chains in every service and recompute each hash: a changed, deleted or cut-off record is named", tag: 'Audit trail', response: auditVerificationSchema },
  // Organisation
  //   an API client's life after creation, as an API key's (decision 149)
  { method: 'GET', path: '/settings/organisation', operationId: 'getOrganisation', summary: 'Read the organisation profile', tag: 'Organisation', response: organisationSchema },
  { method: 'PUT', path: '/settings/organisation', operationId: 'updateOrganisation', summary: 'Update the organisation profile', tag: 'Organisation', body: organisationUpdateSchema, response: organisationSchema },
  //   webhooks (issue 13): an organisation's endpoints for its events, signed per Standard Webhooks
  { method: 'GET', path: '/settings/tax-filing', operationId: 'getTaxFilingSettings', summary: "Read the filer's data for tax filings", tag: 'Organisation', response: taxFilingSettingsSchema },
  { method: 'PUT', path: '/settings/tax-filing', operationId: 'putTaxFilingSettings', summary: "Set the filer's data the tax office's forms need (tax office, filer type, who signs, monthly or quarterly); replaced whole", tag: 'Organisation', body: taxFilingSettingsRequestSchema, response: taxFilingSettingsSchema },
  { method: 'POST', path: '/admin/organisations', operationId: 'createOrganisation', summary: 'Create an organisation (operator token only)', tag: 'Organisation', body: organisationCreateSchema, response: organisationCreatedSchema, operatorOnly: true },
  // Webhooks
  //   webhooks (issue 13): an organisation's endpoints for its events, signed per Standard Webhooks
  { method: 'GET', path: '/settings/webhooks', operationId: 'listWebhooks', summary: 'List webhook endpoints', tag: 'Webhooks', query: webhookListQuerySchema, response: webhookPageSchema },
  { method: 'POST', path: '/settings/webhooks', operationId: 'createWebhook', bodyRequired: true, summary: 'Create a webhook endpoint (the signing secret is returned once)', tag: 'Webhooks', body: webhookCreateSchema, response: webhookWithSecretSchema },
  { method: 'GET', path: '/settings/webhooks/:id', operationId: 'getWebhook', summary: 'Read a webhook endpoint', tag: 'Webhooks', pathParams: idPathParams, response: webhookSchema },
  { method: 'PUT', path: '/settings/webhooks/:id', operationId: 'updateWebhook', bodyRequired: true, summary: 'Change, disable or re-enable a webhook endpoint', tag: 'Webhooks', pathParams: idPathParams, body: webhookUpdateSchema, response: webhookSchema },
  { method: 'DELETE', path: '/settings/webhooks/:id', operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its deliveries', tag: 'Webhooks', pathParams: idPathParams, response: webhookDeletedSchema },
  { method: 'POST', path: '/settings/webhooks/:id/rotate-secret', operationId: 'rotateWebhookSecret', summary: 'Replace the signing secret; the old one keeps signing for an overlap', tag: 'Webhooks', pathParams: idPathParams, response: webhookWithSecretSchema },
  { method: 'GET', path: '/settings/webhooks/:id/deliveries', operationId: 'listWebhookDeliveries', summary: 'List the deliveries of a webhook endpoint, newest first', tag: 'Webhooks', pathParams: idPathParams, query: webhookDeliveryListQuerySchema, response: webhookDeliveryPageSchema },
  { method: 'POST', path: '/settings/webhooks/:id/deliveries/:delivery_id/retry', operationId: 'retryWebhookDelivery', summary: 'Send a delivery again now', tag: 'Webhooks', pathParams: webhookDeliveryPathSchema, response: webhookDeliverySchema },
  // Exchange rates
  //   webhooks (issue 13): an organisation's endpoints for its events, signed per Standard Webhooks
  { method: 'GET', path: '/settings/exchange-rates', operationId: 'listExchangeRates', summary: 'The exchange rates in force on a day (of one currency, or of each)', tag: 'Exchange rates', query: exchangeRateQuerySchema, response: exchangeRateTableSchema },
  { method: 'POST', path: '/settings/exchange-rates/import', operationId: 'importExchangeRates', bodyRequired: true, summary: "Import a central bank's rate file (the CNB's daily fixing, the ECB's eurofxref XML); each day it holds replaces that day", tag: 'Exchange rates', consumes: ['text/plain', 'application/xml', 'application/octet-stream'], body: exchangeRateFileSchema, response: exchangeRateImportSchema },
  { method: 'PUT', path: '/settings/exchange-rates/:currency/:date', operationId: 'putExchangeRate', summary: 'Set the rate of a currency on a day by hand', tag: 'Exchange rates', pathParams: exchangeRatePathSchema, body: exchangeRateRequestSchema, response: exchangeRateSchema },
  // Repo rates
  //   webhooks (issue 13): an organisation's endpoints for its events, signed per Standard Webhooks
  { method: 'GET', path: '/settings/repo-rates', operationId: 'getRepoRates', summary: "The CNB two-week repo-rate history the organisation's statutory late-payment interest is computed from, and the day it is known through", tag: 'Repo rates', response: repoRateHistorySchema },
  { method: 'POST', path: '/settings/repo-rates/import', operationId: 'importRepoRates', bodyRequired: true, summary: "Import the CNB's repo-rate history file (vyvoj_repo_historie.txt); the history is then known through the day it was published", tag: 'Repo rates', consumes: ['text/plain', 'application/octet-stream'], query: repoRateImportQuerySchema, body: repoRateFileSchema, response: repoRateImportSchema },
  { method: 'PUT', path: '/settings/repo-rates/:date', operationId: 'putRepoRate', summary: 'Set a change of the repo rate by hand, in force from the day', tag: 'Repo rates', pathParams: repoRatePathSchema, body: repoRateRequestSchema, response: repoRateHistorySchema },
  // Contacts: the directory of customers and vendors (decision 234), with the contacts scope
  { method: 'GET', path: '/contacts', operationId: 'listContacts', repeatable: ['sort'], scope: 'contacts', summary: 'List contacts, by cursor, searching name, IČO, DIČ and e-mail', tag: 'Contacts', query: contactListQuerySchema, response: contactPageSchema },
  { method: 'POST', path: '/contacts', operationId: 'createContact', bodyRequired: true, scope: 'contacts', summary: 'Create a contact (IČO, DIČ and bank accounts checked)', tag: 'Contacts', body: contactRequestSchema, response: contactRecordSchema },
  { method: 'GET', path: '/contacts/lookup', operationId: 'lookupContact', scope: 'contacts', summary: 'Look a business up in ARES by its IČO: name, address and DIČ to fill a contact', tag: 'Contacts', query: contactLookupQuerySchema, response: contactLookupSchema },
  { method: 'GET', path: '/contacts/vat-check', operationId: 'checkVatNumber', scope: 'contacts', summary: 'Check an EU VAT number in VIES', tag: 'Contacts', query: vatNumberQuerySchema, response: vatNumberCheckSchema },
  { method: 'GET', path: '/contacts/vat-payer', operationId: 'getVatPayerStatus', scope: 'contacts', summary: "Ask the Czech VAT payers' register whether a payer is unreliable and which accounts it has published", tag: 'Contacts', query: vatNumberQuerySchema, response: vatPayerStatusSchema },
  { method: 'GET', path: '/contacts/:id', operationId: 'getContact', scope: 'contacts', summary: 'Read a contact', tag: 'Contacts', pathParams: idPathParams, response: contactRecordSchema },
  { method: 'PUT', path: '/contacts/:id', operationId: 'replaceContact', bodyRequired: true, scope: 'contacts', summary: 'Replace a contact whole (documents already issued keep their copy)', tag: 'Contacts', pathParams: idPathParams, body: contactRequestSchema, response: contactRecordSchema },
  { method: 'DELETE', path: '/contacts/:id', operationId: 'deleteContact', scope: 'contacts', summary: 'Delete a contact; one that documents name is archived instead', tag: 'Contacts', pathParams: idPathParams, response: contactDeletedSchema },
] as const);
