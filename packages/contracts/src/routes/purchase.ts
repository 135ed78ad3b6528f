import { agedBalancesQuerySchema, agedPayables } from '../aged-balances.js';
import { ATTACHMENT_MEDIA_TYPES, attachmentContentSchema, attachmentListQuerySchema, attachmentPageSchema, attachmentPathSchema, attachmentSchema, attachmentUploadSchema } from '../attachments.js';
import { documentWriteQuerySchema, idPathParams } from '../common.js';
import { vendorCreditAllocation } from '../credit-allocations.js';
import { einvoiceImportQuerySchema, importedDocumentSchema, inventoryInExportPathSchema, inventoryInExportQuerySchema, inventoryInExportSchema, vendorBillListQuerySchema, vendorBillPageSchema, vendorBillRequestSchema, vendorBillSchema, vendorCreditListQuerySchema, vendorCreditPageSchema, vendorCreditRequestSchema, vendorCreditSchema } from '../purchase.js';
import { serviceRoutes, xmlDocumentSchema } from './spec.js';

/**
 * Purchase: bills and vendor credits, received e-invoices, the inventory export.
 * Every operation here is served by purchase, with the `purchase` scope unless its row names another;
 * grouped by resource (the OpenAPI tag).
 */
export const purchaseRoutes = serviceRoutes('purchase', [
  // Vendor credits
  { method: 'POST', path: '/purchase/vendor-credits', operationId: 'createVendorCredit', summary: 'Create a vendor credit', specNo: 15, tag: 'Vendor credits', query: documentWriteQuerySchema, body: vendorCreditRequestSchema, response: vendorCreditSchema },
  //   credits applied to open documents of the same party (decision 148)
  { method: 'POST', path: '/purchase/vendor-credits/:id/allocations', operationId: 'allocateVendorCredit', summary: 'Apply a vendor credit to an open bill of the same vendor: both amounts due fall by the amount', tag: 'Vendor credits', pathParams: idPathParams, body: vendorCreditAllocation.request, bodyRequired: true, response: vendorCreditAllocation.allocation },
  { method: 'GET', path: '/purchase/vendor-credits/:id/allocations', operationId: 'listVendorCreditAllocations', summary: 'List the allocations of a vendor credit, removed ones included', tag: 'Vendor credits', pathParams: idPathParams, query: vendorCreditAllocation.listQuery, response: vendorCreditAllocation.page },
  { method: 'DELETE', path: '/purchase/vendor-credits/:id/allocations/:allocation_id', operationId: 'removeVendorCreditAllocation', summary: 'Take an allocation back: both amounts due return to what they were without it', tag: 'Vendor credits', pathParams: vendorCreditAllocation.path, response: vendorCreditAllocation.allocation },
  { method: 'GET', path: '/purchase/vendor-credits', operationId: 'listVendorCredits', repeatable: ['payment_status', 'sort'], summary: 'List vendor credits', tag: 'Vendor credits', query: vendorCreditListQuerySchema, response: vendorCreditPageSchema },
  { method: 'GET', path: '/purchase/vendor-credits/:id', operationId: 'getVendorCredit', summary: 'Read a vendor credit', tag: 'Vendor credits', pathParams: idPathParams, response: vendorCreditSchema },
  // Inventory
  { method: 'GET', path: '/inventory/in/export/:format', operationId: 'exportInventoryIn', repeatable: ['payment_status', 'sort'], summary: 'Export received purchase documents', specNo: 22, tag: 'Inventory', produces: ['application/json', 'text/csv'], pathParams: inventoryInExportPathSchema, query: inventoryInExportQuerySchema, response: inventoryInExportSchema },
  // Vendor bills
  //   credits applied to open documents of the same party (decision 148)
  { method: 'GET', path: '/purchase/bills/:id/allocations', operationId: 'listBillAllocations', summary: 'List the vendor credits applied to a bill (their allocations, removed ones included)', tag: 'Vendor bills', pathParams: idPathParams, query: vendorCreditAllocation.listQuery, response: vendorCreditAllocation.page },
  { method: 'POST', path: '/purchase/bills', operationId: 'createBill', summary: 'Create a vendor bill', tag: 'Vendor bills', query: documentWriteQuerySchema, body: vendorBillRequestSchema, response: vendorBillSchema },
  { method: 'GET', path: '/purchase/bills', operationId: 'listBills', repeatable: ['payment_status', 'sort', 'kind'], summary: 'List vendor bills', tag: 'Vendor bills', query: vendorBillListQuerySchema, response: vendorBillPageSchema },
  { method: 'GET', path: '/purchase/bills/:id', operationId: 'getBill', summary: 'Read a vendor bill', tag: 'Vendor bills', pathParams: idPathParams, response: vendorBillSchema },
  { method: 'POST', path: '/purchase/bills/:id/attachments', operationId: 'uploadBillAttachment', bodyRequired: true, summary: 'Keep a file with the bill (multipart/form-data, one part named file): a PDF, PNG, JPEG or XML document, its type read from its bytes', tag: 'Vendor bills', consumes: ['multipart/form-data'], pathParams: idPathParams, body: attachmentUploadSchema, response: attachmentSchema },
  { method: 'GET', path: '/purchase/bills/:id/attachments', operationId: 'listBillAttachments', summary: 'List the files kept with the bill, each with its size and SHA-256', tag: 'Vendor bills', pathParams: idPathParams, query: attachmentListQuerySchema, response: attachmentPageSchema },
  { method: 'GET', path: '/purchase/bills/:id/attachments/:attachment_id', operationId: 'getBillAttachment', summary: 'The bytes of a file kept with the bill, as stored', tag: 'Vendor bills', produces: ATTACHMENT_MEDIA_TYPES, pathParams: attachmentPathSchema, response: attachmentContentSchema },
  { method: 'DELETE', path: '/purchase/bills/:id/attachments/:attachment_id', operationId: 'deleteBillAttachment', summary: 'Remove a file kept with the bill while its period is open (the received e-invoice itself is kept)', tag: 'Vendor bills', pathParams: attachmentPathSchema, response: attachmentSchema },
  // E-invoices
  //   credits applied to open documents of the same party (decision 148)
  { method: 'POST', path: '/purchase/bills/import', operationId: 'importBill', bodyRequired: true, summary: 'Import a received e-invoice (UBL 2.1 Invoice or CreditNote, or ISDOC 6.0.2) as a vendor bill or vendor credit', tag: 'E-invoices', consumes: ['application/xml'], query: einvoiceImportQuerySchema, body: xmlDocumentSchema, response: importedDocumentSchema },
  // Reporting
  //   credits applied to open documents of the same party (decision 148)
  { method: 'GET', path: '/purchase/reports/aged-payables', operationId: 'getAgedPayables', summary: 'What is owed to vendors, by how long it is overdue', tag: 'Reporting', query: agedBalancesQuerySchema, response: agedPayables.page },
] as const);
