import type { z } from 'zod';

export type ServiceName = 'sales' | 'purchase' | 'finance' | 'accounting' | 'settings';
export type ScopeArea = ServiceName;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One public operation. The gateway routes and authorises by this table; the OpenAPI document
 * is generated from it. `path` uses Hono syntax (`:id`) and is relative to `/v1`.
 */
export interface RouteSpec {
  method: HttpMethod;
  path: string;
  service: ServiceName;
  /** Scope area; GET needs `<area>:read`, other methods `<area>:write` (`admin` grants all). */
  scope: ScopeArea;
  operationId: string;
  summary: string;
  /** Spec endpoint number (1–26) or undefined for a DESIGN §1 extension. */
  specNo?: number;
  tag: string;
  successStatus?: number;
  /** Media types of the success response (JSON unless stated). */
  produces?: string[];
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response?: z.ZodType;
  /** Open operations need no credential (only the token endpoint). */
  open?: boolean;
}

export const ROUTES: RouteSpec[] = [
  // settings: API keys (#1–#6), clients (#13), templates (#8, #9), delivery conditions (#12), integrations (#7, #26)
  { method: 'GET', path: '/settings/security/api-keys', service: 'settings', scope: 'settings', operationId: 'listApiKeys', summary: 'List API keys', specNo: 1, tag: 'API keys' },
  { method: 'POST', path: '/settings/security/api-keys', service: 'settings', scope: 'settings', operationId: 'createApiKey', summary: 'Create an API key (the secret is returned once)', specNo: 2, tag: 'API keys' },
  { method: 'GET', path: '/settings/security/api-keys/:id', service: 'settings', scope: 'settings', operationId: 'getApiKey', summary: 'Read an API key', specNo: 3, tag: 'API keys' },
  { method: 'PUT', path: '/settings/security/api-keys/:id', service: 'settings', scope: 'settings', operationId: 'updateApiKey', summary: 'Change name, scopes or expiry of an API key', specNo: 4, tag: 'API keys' },
  { method: 'DELETE', path: '/settings/security/api-keys/:id', service: 'settings', scope: 'settings', operationId: 'deleteApiKey', summary: 'Delete an API key', specNo: 5, tag: 'API keys' },
  { method: 'POST', path: '/settings/security/api-keys/:id/revoke', service: 'settings', scope: 'settings', operationId: 'revokeApiKey', summary: 'Revoke an API key', specNo: 6, tag: 'API keys' },
  { method: 'PUT', path: '/settings/integrations/cz/hosting/:id', service: 'settings', scope: 'settings', operationId: 'putHostingIntegration', summary: 'Configure the hosting-provider integration', specNo: 7, tag: 'Integrations' },
  { method: 'POST', path: '/settings/templates', service: 'settings', scope: 'settings', operationId: 'saveTemplate', summary: 'Save a document template', specNo: 8, tag: 'Templates' },
  { method: 'GET', path: '/lists/all/templates', service: 'settings', scope: 'settings', operationId: 'listTemplates', summary: 'List templates', specNo: 9, tag: 'Templates' },
  { method: 'GET', path: '/accounting/transactions', service: 'accounting', scope: 'accounting', operationId: 'listAccountingTransactions', summary: 'List accounting transactions with their ledger rows', specNo: 10, tag: 'Ledger' },
  { method: 'GET', path: '/CRM/emails', service: 'sales', scope: 'sales', operationId: 'listEmails', summary: 'List e-mail records', specNo: 11, tag: 'E-mail' },
  { method: 'GET', path: '/settings/delivery-conditions', service: 'settings', scope: 'settings', operationId: 'listDeliveryConditions', summary: 'List delivery conditions (Incoterms 2020)', specNo: 12, tag: 'Delivery conditions' },
  { method: 'POST', path: '/settings/security/clients', service: 'settings', scope: 'settings', operationId: 'createClient', summary: 'Create an API client (the secret is returned once)', specNo: 13, tag: 'API clients' },
  { method: 'POST', path: '/sales/credit-notes', service: 'sales', scope: 'sales', operationId: 'createCreditNote', summary: 'Create a sales credit note', specNo: 14, tag: 'Credit notes' },
  { method: 'POST', path: '/purchase/vendor-credits', service: 'purchase', scope: 'purchase', operationId: 'createVendorCredit', summary: 'Create a vendor credit', specNo: 15, tag: 'Vendor credits' },
  { method: 'POST', path: '/finance/bank/transactions', service: 'finance', scope: 'finance', operationId: 'recordBankTransaction', summary: 'Record a bank transaction', specNo: 16, tag: 'Bank transactions' },
  { method: 'POST', path: '/sales/invoices/compliance/evaluate', service: 'sales', scope: 'sales', operationId: 'evaluateInvoiceCompliance', summary: 'Evaluate delivery and reporting compliance of invoices', specNo: 17, tag: 'Compliance', successStatus: 202 },
  { method: 'POST', path: '/sales/invoices/:id/email', service: 'sales', scope: 'sales', operationId: 'emailInvoice', summary: 'Send an invoice by e-mail', specNo: 18, tag: 'E-mail' },
  { method: 'PUT', path: '/finance/payouts/:id', service: 'finance', scope: 'finance', operationId: 'replacePayout', summary: 'Replace a payout', specNo: 19, tag: 'Payouts' },
  { method: 'GET', path: '/finance/payouts', service: 'finance', scope: 'finance', operationId: 'listPayouts', summary: 'List payouts', specNo: 20, tag: 'Payouts' },
  { method: 'GET', path: '/lists/items/:id/rates/sales', service: 'sales', scope: 'sales', operationId: 'getItemSalesRate', summary: 'Look up the sales rate of an item', specNo: 21, tag: 'Items' },
  { method: 'GET', path: '/inventory/in/export/:format', service: 'purchase', scope: 'purchase', operationId: 'exportInventoryIn', summary: 'Export received purchase documents', specNo: 22, tag: 'Inventory', produces: ['application/json', 'text/csv'] },
  { method: 'GET', path: '/sales/credit-notes/check-no', service: 'sales', scope: 'sales', operationId: 'checkCreditNoteNo', summary: 'Check whether a credit-note number exists', specNo: 23, tag: 'Credit notes' },
  { method: 'GET', path: '/sales/credit-notes/:id/html', service: 'sales', scope: 'sales', operationId: 'getCreditNoteHtml', summary: 'Render a credit note as HTML', specNo: 24, tag: 'Credit notes', produces: ['text/html'] },
  { method: 'POST', path: '/reporting/financial/trial-balance/:book_id/export/:format', service: 'accounting', scope: 'accounting', operationId: 'exportTrialBalance', summary: 'Export the trial balance of a book', specNo: 25, tag: 'Reporting', produces: ['application/json', 'text/csv'] },
  { method: 'POST', path: '/settings/integrations/sk.bank_a', service: 'settings', scope: 'settings', operationId: 'createBankIntegration', summary: 'Configure the bank integration', specNo: 26, tag: 'Integrations' },

  // DESIGN §1 extensions
  { method: 'POST', path: '/sales/invoices', service: 'sales', scope: 'sales', operationId: 'createInvoice', summary: 'Create a sales invoice', tag: 'Invoices' },
  { method: 'GET', path: '/sales/invoices', service: 'sales', scope: 'sales', operationId: 'listInvoices', summary: 'List sales invoices', tag: 'Invoices' },
  { method: 'GET', path: '/sales/invoices/:id', service: 'sales', scope: 'sales', operationId: 'getInvoice', summary: 'Read a sales invoice', tag: 'Invoices' },
  { method: 'GET', path: '/sales/invoices/:id/html', service: 'sales', scope: 'sales', operationId: 'getInvoiceHtml', summary: 'Render an invoice as HTML', tag: 'Invoices', produces: ['text/html'] },
  { method: 'GET', path: '/sales/invoices/:id/pdf', service: 'sales', scope: 'sales', operationId: 'getInvoicePdf', summary: 'Render an invoice as PDF', tag: 'Invoices', produces: ['application/pdf'] },
  { method: 'GET', path: '/sales/invoices/:id/compliance', service: 'sales', scope: 'sales', operationId: 'getInvoiceCompliance', summary: 'Read the latest compliance evaluation of an invoice', tag: 'Compliance' },
  { method: 'GET', path: '/sales/credit-notes', service: 'sales', scope: 'sales', operationId: 'listCreditNotes', summary: 'List sales credit notes', tag: 'Credit notes' },
  { method: 'GET', path: '/sales/credit-notes/:id', service: 'sales', scope: 'sales', operationId: 'getCreditNote', summary: 'Read a sales credit note', tag: 'Credit notes' },
  { method: 'GET', path: '/sales/credit-notes/:id/pdf', service: 'sales', scope: 'sales', operationId: 'getCreditNotePdf', summary: 'Render a credit note as PDF', tag: 'Credit notes', produces: ['application/pdf'] },
  { method: 'POST', path: '/purchase/bills', service: 'purchase', scope: 'purchase', operationId: 'createBill', summary: 'Create a vendor bill', tag: 'Vendor bills' },
  { method: 'GET', path: '/purchase/bills', service: 'purchase', scope: 'purchase', operationId: 'listBills', summary: 'List vendor bills', tag: 'Vendor bills' },
  { method: 'GET', path: '/purchase/vendor-credits', service: 'purchase', scope: 'purchase', operationId: 'listVendorCredits', summary: 'List vendor credits', tag: 'Vendor credits' },
  { method: 'GET', path: '/finance/bank/transactions', service: 'finance', scope: 'finance', operationId: 'listBankTransactions', summary: 'List bank transactions', tag: 'Bank transactions' },
  { method: 'POST', path: '/finance/payouts', service: 'finance', scope: 'finance', operationId: 'createPayout', summary: 'Create a payout', tag: 'Payouts' },
  { method: 'GET', path: '/finance/payouts/:id', service: 'finance', scope: 'finance', operationId: 'getPayout', summary: 'Read a payout', tag: 'Payouts' },
  { method: 'POST', path: '/lists/items', service: 'sales', scope: 'sales', operationId: 'createItem', summary: 'Create an item', tag: 'Items' },
  { method: 'GET', path: '/lists/items', service: 'sales', scope: 'sales', operationId: 'listItems', summary: 'List items', tag: 'Items' },
  { method: 'POST', path: '/lists/price-lists', service: 'sales', scope: 'sales', operationId: 'createPriceList', summary: 'Create a price list', tag: 'Items' },
  { method: 'GET', path: '/settings/organisation', service: 'settings', scope: 'settings', operationId: 'getOrganisation', summary: 'Read the organisation profile', tag: 'Organisation' },
  { method: 'PUT', path: '/settings/organisation', service: 'settings', scope: 'settings', operationId: 'updateOrganisation', summary: 'Update the organisation profile', tag: 'Organisation' },
  { method: 'POST', path: '/oauth/token', service: 'settings', scope: 'settings', operationId: 'issueAccessToken', summary: 'Exchange client credentials for an access token', tag: 'API clients', open: true },
  { method: 'POST', path: '/admin/organisations', service: 'settings', scope: 'settings', operationId: 'createOrganisation', summary: 'Create an organisation (operator token only)', tag: 'Organisation' },
];
