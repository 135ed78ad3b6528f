import { agedBalancesQuerySchema, agedReceivables, customerStatementQuerySchema, customerStatementSchema } from '../aged-balances.js';
import { ATTACHMENT_MEDIA_TYPES, attachmentContentSchema, attachmentListQuerySchema, attachmentPageSchema, attachmentPathSchema, attachmentSchema, attachmentUploadSchema } from '../attachments.js';
import { itemListQuerySchema, itemPageSchema, itemRequestSchema, itemSalesRateQuerySchema, itemSalesRateSchema, itemSchema, numberSeriesListQuerySchema, numberSeriesPageSchema, numberSeriesRequestSchema, numberSeriesSchema, priceListRequestSchema, priceListSchema } from '../catalogue.js';
import { documentWriteQuerySchema, idPathParams, renderQuery } from '../common.js';
import { complianceEvaluateBodySchema, complianceEvaluateResultSchema, complianceRecordSchema } from '../compliance.js';
import { creditNoteAllocation } from '../credit-allocations.js';
import { emailInvoiceQuerySchema, emailListQuerySchema, emailListSchema, emailRequestSchema, invoiceEmailResultSchema } from '../emails.js';
import { recurringInvoiceDeletedSchema, recurringInvoiceListQuerySchema, recurringInvoicePageSchema, recurringInvoiceRequestSchema, recurringInvoiceResumeQuerySchema, recurringInvoiceSchema } from '../recurring-invoices.js';
import { reminderLinePageSchema, reminderListQuerySchema, reminderRunRequestSchema, reminderRunResultSchema, reminderSettingsRequestSchema, reminderSettingsSchema } from '../reminders.js';
import { creditNoteCheckNoQuerySchema, creditNoteCheckNoResultSchema, creditNoteListQuerySchema, creditNotePageSchema, creditNoteRequestSchema, creditNoteSchema, invoiceListQuerySchema, invoicePageSchema, invoiceRequestSchema, invoiceSchema, proformaInvoiceRequestSchema, proformaInvoiceSchema, proformaListQuerySchema, proformaInvoicePageSchema, advanceTaxDocumentSchema, advanceTaxDocumentListQuerySchema, advanceTaxDocumentPageSchema } from '../sales.js';
import { serviceRoutes, htmlDocumentSchema, xmlDocumentSchema, pdfDocumentSchema } from './spec.js';

/**
 * Sales: invoices, credit notes and what serves them (items, price lists, number series,
 * e-mail, reminders, recurring invoices, compliance).
 * Every operation here is served by sales, with the `sales` scope unless its row names another;
 * grouped by resource (the OpenAPI tag).
 */
export const salesRoutes = serviceRoutes('sales', [
  // E-mail
  { method: 'GET', path: '/CRM/emails', operationId: 'listEmails', summary: 'List e-mail records', specNo: 11, tag: 'E-mail', query: emailListQuerySchema, response: emailListSchema },
  { method: 'POST', path: '/sales/invoices/:id/email', operationId: 'emailInvoice', summary: 'Send an invoice by e-mail', specNo: 18, tag: 'E-mail', pathParams: idPathParams, query: emailInvoiceQuerySchema, body: emailRequestSchema, response: invoiceEmailResultSchema },
  // Credit notes
  { method: 'POST', path: '/sales/credit-notes', operationId: 'createCreditNote', summary: 'Create a sales credit note', specNo: 14, tag: 'Credit notes', query: documentWriteQuerySchema, body: creditNoteRequestSchema, response: creditNoteSchema },
  { method: 'GET', path: '/sales/credit-notes/check-no', operationId: 'checkCreditNoteNo', repeatable: ['exclude_id'], summary: 'Check whether a credit-note number exists', specNo: 23, tag: 'Credit notes', query: creditNoteCheckNoQuerySchema, response: creditNoteCheckNoResultSchema },
  { method: 'GET', path: '/sales/credit-notes/:id/html', operationId: 'getCreditNoteHtml', summary: 'Render a credit note as HTML', specNo: 24, tag: 'Credit notes', produces: ['text/html'], pathParams: idPathParams, query: renderQuery, response: htmlDocumentSchema },
  { method: 'GET', path: '/sales/credit-notes', operationId: 'listCreditNotes', repeatable: ['sort', 'payment_status'], summary: 'List sales credit notes', tag: 'Credit notes', query: creditNoteListQuerySchema, response: creditNotePageSchema },
  { method: 'GET', path: '/sales/credit-notes/:id', operationId: 'getCreditNote', summary: 'Read a sales credit note', tag: 'Credit notes', pathParams: idPathParams, response: creditNoteSchema },
  { method: 'GET', path: '/sales/credit-notes/:id/pdf', operationId: 'getCreditNotePdf', summary: 'Render a credit note as PDF', tag: 'Credit notes', produces: ['application/pdf'], pathParams: idPathParams, query: renderQuery, response: pdfDocumentSchema },
  //   credits applied to open documents of the same party (decision 148)
  { method: 'POST', path: '/sales/credit-notes/:id/allocations', operationId: 'allocateCreditNote', summary: 'Apply a credit note to an open invoice of the same customer: both amounts due fall by the amount', tag: 'Credit notes', pathParams: idPathParams, body: creditNoteAllocation.request, bodyRequired: true, response: creditNoteAllocation.allocation },
  { method: 'GET', path: '/sales/credit-notes/:id/allocations', operationId: 'listCreditNoteAllocations', summary: 'List the allocations of a credit note, removed ones included', tag: 'Credit notes', pathParams: idPathParams, query: creditNoteAllocation.listQuery, response: creditNoteAllocation.page },
  { method: 'DELETE', path: '/sales/credit-notes/:id/allocations/:allocation_id', operationId: 'removeCreditNoteAllocation', summary: 'Take an allocation back: both amounts due return to what they were without it', tag: 'Credit notes', pathParams: creditNoteAllocation.path, response: creditNoteAllocation.allocation },
  // Compliance
  { method: 'POST', path: '/sales/invoices/compliance/evaluate', operationId: 'evaluateInvoiceCompliance', summary: 'Evaluate delivery and reporting compliance of invoices', specNo: 17, tag: 'Compliance', successStatus: 202, body: complianceEvaluateBodySchema, response: complianceEvaluateResultSchema },
  { method: 'GET', path: '/sales/invoices/:id/compliance', operationId: 'getInvoiceCompliance', summary: 'Read the latest compliance evaluation of an invoice', tag: 'Compliance', pathParams: idPathParams, response: complianceRecordSchema },
  // Items
  { method: 'GET', path: '/lists/items/:id/rates/sales', operationId: 'getItemSalesRate', summary: 'Look up the sales rate of an item', specNo: 21, tag: 'Items', pathParams: idPathParams, query: itemSalesRateQuerySchema, response: itemSalesRateSchema },
  //   credits applied to open documents of the same party (decision 148)
  { method: 'POST', path: '/lists/items', operationId: 'createItem', summary: 'Create an item', tag: 'Items', body: itemRequestSchema, response: itemSchema },
  { method: 'GET', path: '/lists/items', operationId: 'listItems', repeatable: ['sort'], summary: 'List items', tag: 'Items', query: itemListQuerySchema, response: itemPageSchema },
  { method: 'POST', path: '/lists/price-lists', operationId: 'createPriceList', summary: 'Create a price list', tag: 'Items', body: priceListRequestSchema, response: priceListSchema },
  // Invoices
  { method: 'POST', path: '/sales/invoices', operationId: 'createInvoice', summary: 'Create a sales invoice', tag: 'Invoices', query: documentWriteQuerySchema, body: invoiceRequestSchema, response: invoiceSchema },
  { method: 'GET', path: '/sales/invoices', operationId: 'listInvoices', repeatable: ['sort', 'payment_status'], summary: 'List sales invoices', tag: 'Invoices', query: invoiceListQuerySchema, response: invoicePageSchema },
  { method: 'GET', path: '/sales/invoices/:id', operationId: 'getInvoice', summary: 'Read a sales invoice', tag: 'Invoices', pathParams: idPathParams, response: invoiceSchema },
  { method: 'GET', path: '/sales/invoices/:id/html', operationId: 'getInvoiceHtml', summary: 'Render an invoice as HTML', tag: 'Invoices', produces: ['text/html'], pathParams: idPathParams, query: renderQuery, response: htmlDocumentSchema },
  { method: 'GET', path: '/sales/invoices/:id/pdf', operationId: 'getInvoicePdf', summary: 'Render an invoice as PDF', tag: 'Invoices', produces: ['application/pdf'], pathParams: idPathParams, query: renderQuery, response: pdfDocumentSchema },
  //   credits applied to open documents of the same party (decision 148)
  { method: 'GET', path: '/sales/invoices/:id/allocations', operationId: 'listInvoiceAllocations', summary: 'List the credit notes applied to an invoice (their allocations, removed ones included)', tag: 'Invoices', pathParams: idPathParams, query: creditNoteAllocation.listQuery, response: creditNoteAllocation.page },
  { method: 'POST', path: '/sales/invoices/:id/attachments', operationId: 'uploadInvoiceAttachment', bodyRequired: true, summary: 'Keep a file with the invoice (multipart/form-data, one part named file): a PDF, PNG, JPEG or XML document, its type read from its bytes', tag: 'Invoices', consumes: ['multipart/form-data'], pathParams: idPathParams, body: attachmentUploadSchema, response: attachmentSchema },
  { method: 'GET', path: '/sales/invoices/:id/attachments', operationId: 'listInvoiceAttachments', summary: 'List the files kept with the invoice, each with its size and SHA-256', tag: 'Invoices', pathParams: idPathParams, query: attachmentListQuerySchema, response: attachmentPageSchema },
  { method: 'GET', path: '/sales/invoices/:id/attachments/:attachment_id', operationId: 'getInvoiceAttachment', summary: 'The bytes of a file kept with the invoice, as stored', tag: 'Invoices', produces: ATTACHMENT_MEDIA_TYPES, pathParams: attachmentPathSchema, response: attachmentContentSchema },
  { method: 'DELETE', path: '/sales/invoices/:id/attachments/:attachment_id', operationId: 'deleteInvoiceAttachment', summary: 'Remove a file kept with the invoice while its period is open (the received e-invoice itself is kept)', tag: 'Invoices', pathParams: attachmentPathSchema, response: attachmentSchema },
  // Advance invoices (proformas) and the tax documents of their payments
  { method: 'POST', path: '/sales/proforma-invoices', operationId: 'createProformaInvoice', summary: 'Ask for payment in advance: a proforma invoice (not a tax document, never posted); its payment is held on 324 and, for a VAT payer, gets a tax document', tag: 'Advance invoices', body: proformaInvoiceRequestSchema, response: proformaInvoiceSchema },
  { method: 'GET', path: '/sales/proforma-invoices', operationId: 'listProformaInvoices', repeatable: ['sort', 'status'], summary: 'List proforma invoices', tag: 'Advance invoices', query: proformaListQuerySchema, response: proformaInvoicePageSchema },
  { method: 'GET', path: '/sales/proforma-invoices/:id', operationId: 'getProformaInvoice', summary: 'Read a proforma invoice with its status and tax documents', tag: 'Advance invoices', pathParams: idPathParams, response: proformaInvoiceSchema },
  { method: 'PUT', path: '/sales/proforma-invoices/:id', operationId: 'updateProformaInvoice', bodyRequired: true, summary: 'Replace an unpaid proforma invoice (its number stays); 409 once anything is paid, settled or cancelled', tag: 'Advance invoices', pathParams: idPathParams, body: proformaInvoiceRequestSchema, response: proformaInvoiceSchema },
  { method: 'POST', path: '/sales/proforma-invoices/:id/cancel', operationId: 'cancelProformaInvoice', summary: 'Cancel a proforma invoice nothing has been paid on (409 otherwise: refund the payment first)', tag: 'Advance invoices', pathParams: idPathParams, response: proformaInvoiceSchema },
  { method: 'GET', path: '/sales/proforma-invoices/:id/pdf', operationId: 'getProformaInvoicePdf', summary: 'Render a proforma invoice as PDF, with the QR payment code', tag: 'Advance invoices', produces: ['application/pdf'], pathParams: idPathParams, query: renderQuery, response: pdfDocumentSchema },
  { method: 'POST', path: '/sales/proforma-invoices/:id/email', operationId: 'emailProformaInvoice', summary: 'Send a proforma invoice by e-mail with its PDF', tag: 'Advance invoices', pathParams: idPathParams, query: emailInvoiceQuerySchema, body: emailRequestSchema, response: invoiceEmailResultSchema },
  { method: 'GET', path: '/sales/advance-tax-documents', operationId: 'listAdvanceTaxDocuments', repeatable: ['sort'], summary: 'List the tax documents issued on payments received for proformas', tag: 'Advance invoices', query: advanceTaxDocumentListQuerySchema, response: advanceTaxDocumentPageSchema },
  { method: 'GET', path: '/sales/advance-tax-documents/:id', operationId: 'getAdvanceTaxDocument', summary: 'Read a tax document on a received payment', tag: 'Advance invoices', pathParams: idPathParams, response: advanceTaxDocumentSchema },
  { method: 'GET', path: '/sales/advance-tax-documents/:id/pdf', operationId: 'getAdvanceTaxDocumentPdf', summary: 'Render a tax document on a received payment as PDF', tag: 'Advance invoices', produces: ['application/pdf'], pathParams: idPathParams, query: renderQuery, response: pdfDocumentSchema },
  // E-invoices
  { method: 'GET', path: '/sales/invoices/:id/ubl', operationId: 'getInvoiceUbl', summary: 'The invoice as a Peppol BIS Billing 3.0 document (UBL 2.1); 422 names each Peppol rule the invoice does not meet yet', tag: 'E-invoices', produces: ['application/xml'], pathParams: idPathParams, response: xmlDocumentSchema },
  { method: 'GET', path: '/sales/invoices/:id/isdoc', operationId: 'getInvoiceIsdoc', summary: 'The invoice as an ISDOC 6.0.2 document (the Czech e-invoice, DocumentType 1); amounts in the legal currency, and in the invoice currency too when it differs', tag: 'E-invoices', produces: ['application/xml'], pathParams: idPathParams, response: xmlDocumentSchema },
  { method: 'GET', path: '/sales/credit-notes/:id/ubl', operationId: 'getCreditNoteUbl', summary: 'The credit note as a Peppol BIS Billing 3.0 document (UBL 2.1 CreditNote referring to the credited invoice)', tag: 'E-invoices', produces: ['application/xml'], pathParams: idPathParams, response: xmlDocumentSchema },
  { method: 'GET', path: '/sales/credit-notes/:id/isdoc', operationId: 'getCreditNoteIsdoc', summary: 'The credit note as an ISDOC 6.0.2 document (DocumentType 2 with the reference to the credited invoice); 422 when it credits no invoice', tag: 'E-invoices', produces: ['application/xml'], pathParams: idPathParams, response: xmlDocumentSchema },
  // Reporting
  //   credits applied to open documents of the same party (decision 148)
  { method: 'GET', path: '/sales/reports/aged-receivables', operationId: 'getAgedReceivables', summary: 'What customers owe, by how long it is overdue', tag: 'Reporting', query: agedBalancesQuerySchema, response: agedReceivables.page },
  { method: 'GET', path: '/sales/reports/customer-statement', operationId: 'getCustomerStatement', summary: "A customer's statement of account for a period", tag: 'Reporting', query: customerStatementQuerySchema, response: customerStatementSchema },
  // Payment reminders
  //   credits applied to open documents of the same party (decision 148)
  { method: 'PUT', path: '/settings/reminders', scope: 'settings', operationId: 'putReminderSettings', bodyRequired: true, summary: 'Set the payment reminder levels: days after due, fee per currency, e-mail per language; replaced whole', tag: 'Payment reminders', body: reminderSettingsRequestSchema, response: reminderSettingsSchema },
  { method: 'GET', path: '/settings/reminders', scope: 'settings', operationId: 'getReminderSettings', summary: 'Read the payment reminder levels', tag: 'Payment reminders', response: reminderSettingsSchema },
  { method: 'DELETE', path: '/settings/reminders', scope: 'settings', operationId: 'deleteReminderSettings', summary: 'Remove the payment reminder levels: no reminders go out, as before any were set (the letters sent stay)', tag: 'Payment reminders', response: reminderSettingsSchema },
  { method: 'POST', path: '/sales/reminders/run', operationId: 'runReminders', summary: "Send the reminders of a day now (the daily run does it by itself): each overdue invoice's next level once, one letter per customer with its PDF", tag: 'Payment reminders', body: reminderRunRequestSchema, response: reminderRunResultSchema },
  { method: 'GET', path: '/sales/reminders/:id/pdf', operationId: 'getReminderPdf', summary: 'The reminder letter as the customer received it (PDF)', tag: 'Payment reminders', produces: ['application/pdf'], pathParams: idPathParams, response: pdfDocumentSchema },
  { method: 'GET', path: '/sales/invoices/:id/reminders', operationId: 'listInvoiceReminders', summary: 'The reminders sent for an invoice, level by level', tag: 'Payment reminders', pathParams: idPathParams, query: reminderListQuerySchema, response: reminderLinePageSchema },
  // Recurring invoices
  //   credits applied to open documents of the same party (decision 148)
  { method: 'POST', path: '/sales/recurring-invoices', operationId: 'createRecurringInvoice', bodyRequired: true, summary: 'Schedule an invoice issued every period (issued at once for every period already due)', tag: 'Recurring invoices', body: recurringInvoiceRequestSchema, response: recurringInvoiceSchema },
  { method: 'GET', path: '/sales/recurring-invoices', operationId: 'listRecurringInvoices', summary: 'List recurring invoices', tag: 'Recurring invoices', query: recurringInvoiceListQuerySchema, response: recurringInvoicePageSchema },
  { method: 'GET', path: '/sales/recurring-invoices/:id', operationId: 'getRecurringInvoice', summary: 'Read a recurring invoice with its next five issue dates', tag: 'Recurring invoices', pathParams: idPathParams, response: recurringInvoiceSchema },
  { method: 'PUT', path: '/sales/recurring-invoices/:id', operationId: 'updateRecurringInvoice', bodyRequired: true, summary: 'Replace the template and schedule of a recurring invoice; what it issued stays, the next issue date follows the new schedule', tag: 'Recurring invoices', pathParams: idPathParams, body: recurringInvoiceRequestSchema, response: recurringInvoiceSchema },
  { method: 'DELETE', path: '/sales/recurring-invoices/:id', operationId: 'deleteRecurringInvoice', summary: 'Delete a recurring invoice; the invoices it issued stay', tag: 'Recurring invoices', pathParams: idPathParams, response: recurringInvoiceDeletedSchema },
  { method: 'POST', path: '/sales/recurring-invoices/:id/pause', operationId: 'pauseRecurringInvoice', summary: 'Pause a recurring invoice: nothing is issued until it is resumed', tag: 'Recurring invoices', pathParams: idPathParams, response: recurringInvoiceSchema },
  { method: 'POST', path: '/sales/recurring-invoices/:id/resume', operationId: 'resumeRecurringInvoice', summary: 'Resume a paused recurring invoice: the periods missed meanwhile are issued at once unless skip_missed', tag: 'Recurring invoices', pathParams: idPathParams, query: recurringInvoiceResumeQuerySchema, response: recurringInvoiceSchema },
  // Numbering
  //   credits applied to open documents of the same party (decision 148)
  { method: 'POST', path: '/sales/numbering-series', operationId: 'createNumberingSeries', summary: 'Create a numbering series', tag: 'Numbering', body: numberSeriesRequestSchema, response: numberSeriesSchema },
  { method: 'GET', path: '/sales/numbering-series', operationId: 'listNumberingSeries', summary: 'List numbering series', tag: 'Numbering', query: numberSeriesListQuerySchema, response: numberSeriesPageSchema },
] as const);
