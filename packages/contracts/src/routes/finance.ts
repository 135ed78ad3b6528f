import { idPathParams } from '../common.js';
import { bankStatementImportQuerySchema, bankStatementImportSchema, bankStatementListQuerySchema, bankStatementPageSchema, bankStatementSchema, bankTransactionListQuerySchema, bankTransactionMatchRequestSchema, bankTransactionPageSchema, bankTransactionRequestSchema, bankTransactionSchema, payoutListQuerySchema, payoutPageSchema, payoutRequestSchema, payoutSchema, statementFileSchema, paymentOrderRequestSchema, paymentOrderSchema, paymentOrderListQuerySchema, paymentOrderPageSchema, paymentOrderGetQuerySchema, fioIntegrationRequestSchema, fioIntegrationReplaceSchema, fioIntegrationSchema, fioIntegrationListSchema } from '../finance.js';
import { serviceRoutes } from './spec.js';

/**
 * Finance: bank statements and transactions, payouts, matching, aged balances.
 * Every operation here is served by finance, with the `finance` scope unless its row names another;
 * grouped by resource (the OpenAPI tag).
 */
export const financeRoutes = serviceRoutes('finance', [
  // Bank transactions
  { method: 'POST', path: '/finance/bank/transactions', operationId: 'recordBankTransaction', summary: 'Record a bank transaction', specNo: 16, tag: 'Bank transactions', body: bankTransactionRequestSchema, response: bankTransactionSchema },
  //   credits applied to open documents of the same party (decision 148)
  { method: 'GET', path: '/finance/bank/transactions', operationId: 'listBankTransactions', repeatable: ['sort'], summary: 'List bank transactions', tag: 'Bank transactions', query: bankTransactionListQuerySchema, response: bankTransactionPageSchema },
  { method: 'POST', path: '/finance/bank/transactions/:id/match', operationId: 'matchBankTransaction', summary: 'Match an unmatched bank transaction to the document it pays: the suspense posting is reversed and the payment applied (409 when it is already matched)', tag: 'Bank transactions', pathParams: idPathParams, body: bankTransactionMatchRequestSchema, response: bankTransactionSchema },
  { method: 'POST', path: '/finance/bank/transactions/:id/unmatch', operationId: 'unmatchBankTransaction', summary: 'Take a matched bank transaction off the document it paid (a wrong match): the payment is taken back from the document and the money waits in 395 suspense until it is matched again', tag: 'Bank transactions', pathParams: idPathParams, response: bankTransactionSchema },
  // Payouts
  { method: 'PUT', path: '/finance/payouts/:id', operationId: 'replacePayout', summary: 'Replace a payout', specNo: 19, tag: 'Payouts', pathParams: idPathParams, body: payoutRequestSchema, response: payoutSchema },
  { method: 'GET', path: '/finance/payouts', operationId: 'listPayouts', repeatable: ['psp_object_id', 'sort'], summary: 'List payouts', specNo: 20, tag: 'Payouts', query: payoutListQuerySchema, response: payoutPageSchema },
  //   credits applied to open documents of the same party (decision 148)
  { method: 'POST', path: '/finance/payouts', operationId: 'createPayout', summary: 'Create a payout', tag: 'Payouts', body: payoutRequestSchema, response: payoutSchema },
  { method: 'GET', path: '/finance/payouts/:id', operationId: 'getPayout', summary: 'Read a payout', tag: 'Payouts', pathParams: idPathParams, response: payoutSchema },
  // Bank statements
  //   credits applied to open documents of the same party (decision 148)
  { method: 'POST', path: '/finance/bank/statements', operationId: 'importBankStatement', bodyRequired: true, summary: 'Import a bank statement file (camt.053, GPC or MT940): balances reconciled, each entry matched by variable symbol, payment reference or amount, fees to 568, the rest to 395 suspense; 409 when already imported', tag: 'Bank statements', consumes: ['application/xml', 'text/plain', 'application/octet-stream'], query: bankStatementImportQuerySchema, body: statementFileSchema, response: bankStatementImportSchema },
  { method: 'GET', path: '/finance/bank/statements', operationId: 'listBankStatements', summary: 'List imported bank statements', tag: 'Bank statements', query: bankStatementListQuerySchema, response: bankStatementPageSchema },
  { method: 'GET', path: '/finance/bank/statements/:id', operationId: 'getBankStatement', summary: 'Read an imported bank statement with what happened to each entry', tag: 'Bank statements', pathParams: idPathParams, response: bankStatementSchema },
  // Payment orders (issue 76)
  { method: 'POST', path: '/finance/payment-orders', operationId: 'createPaymentOrder', summary: "Put bills into one payment order for the bank, each for its amount_due (409 for a bill already in an open order; 422 for one without the vendor's account, or whose vendor check says risk unless accept_risk)", tag: 'Payment orders', body: paymentOrderRequestSchema, response: paymentOrderSchema },
  { method: 'GET', path: '/finance/payment-orders', operationId: 'listPaymentOrders', repeatable: ['status'], summary: 'List payment orders', tag: 'Payment orders', query: paymentOrderListQuerySchema, response: paymentOrderPageSchema },
  { method: 'GET', path: '/finance/payment-orders/:id', operationId: 'getPaymentOrder', summary: 'Read a payment order: JSON, ISO 20022 pain.001.001.03 (Accept: application/xml or ?format=pain.001) or the Czech ABO file (?format=abo; CZK from a Czech account, else 422)', tag: 'Payment orders', produces: ['application/json', 'application/xml', 'text/plain'], pathParams: idPathParams, query: paymentOrderGetQuerySchema, response: paymentOrderSchema },
  { method: 'POST', path: '/finance/payment-orders/:id/sent', operationId: 'markPaymentOrderSent', summary: 'Mark an open payment order as sent to the bank (it can no longer be cancelled)', tag: 'Payment orders', pathParams: idPathParams, response: paymentOrderSchema },
  { method: 'POST', path: '/finance/payment-orders/:id/cancel', operationId: 'cancelPaymentOrder', summary: 'Cancel a payment order not yet sent: its bills are free to be ordered again (409 once sent)', tag: 'Payment orders', pathParams: idPathParams, response: paymentOrderSchema },
  // Statements fetched from the bank (issue 78): settings of the organisation, kept and run by finance
  { method: 'POST', path: '/settings/integrations/cz.fio', operationId: 'createFioIntegration', bodyRequired: true, scope: 'settings', summary: "Connect a Fio banka account by its API token: its movements are fetched every interval_minutes and imported as statements", tag: 'Integrations', body: fioIntegrationRequestSchema, response: fioIntegrationSchema },
  { method: 'GET', path: '/settings/integrations/cz.fio', operationId: 'listFioIntegrations', scope: 'settings', summary: 'List the Fio integrations with their last fetch', tag: 'Integrations', response: fioIntegrationListSchema },
  { method: 'GET', path: '/settings/integrations/cz.fio/:id', operationId: 'getFioIntegration', scope: 'settings', summary: 'Read a Fio integration: its last fetch, last success and last error', tag: 'Integrations', pathParams: idPathParams, response: fioIntegrationSchema },
  { method: 'PUT', path: '/settings/integrations/cz.fio/:id', operationId: 'replaceFioIntegration', bodyRequired: true, scope: 'settings', summary: 'Replace a Fio integration (the token only when given)', tag: 'Integrations', pathParams: idPathParams, body: fioIntegrationReplaceSchema, response: fioIntegrationSchema },
  { method: 'DELETE', path: '/settings/integrations/cz.fio/:id', operationId: 'deleteFioIntegration', scope: 'settings', summary: 'Disconnect a Fio integration (what it imported stays)', tag: 'Integrations', pathParams: idPathParams, response: fioIntegrationSchema },
  { method: 'POST', path: '/settings/integrations/cz.fio/:id/fetch', operationId: 'fetchFioIntegration', scope: 'settings', summary: 'Fetch the movements now (429 within 30 seconds of the last call to the bank)', tag: 'Integrations', pathParams: idPathParams, response: fioIntegrationSchema },
] as const);
