import { SUBJECTS } from '@ledgerline/contracts';
import { vendorBillRequestSchema, vendorBillSchema } from '@ledgerline/contracts/purchase';
import type { PurchaseDocumentKind } from '../purchase-documents/kind.js';
import { billAdvanceDeductions } from '../advances/deductions.js';

export const BILLS: PurchaseDocumentKind<'bill', typeof vendorBillRequestSchema> = {
  kind: 'bill',
  documentType: 'purchase_bill',
  subject: SUBJECTS.purchaseBillPosted,
  label: 'vendor bill',
  requestSchema: vendorBillRequestSchema,
  responseSchema: vendorBillSchema,
  mask: 'BILL{YYYY}{#####}',
  // a final bill's advances (decision 237)
  deducts: billAdvanceDeductions,
};
