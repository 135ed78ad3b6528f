import { SUBJECTS } from '@ledgerline/contracts';
import { vendorBillRequestSchema, vendorBillSchema } from '@ledgerline/contracts/purchase';
import type { PurchaseDocumentKind } from '../purchase-documents/kind.js';

export const BILLS: PurchaseDocumentKind<'bill', typeof vendorBillRequestSchema> = {
  kind: 'bill',
  documentType: 'purchase_bill',
  subject: SUBJECTS.purchaseBillPosted,
  label: 'vendor bill',
  requestSchema: vendorBillRequestSchema,
  responseSchema: vendorBillSchema,
  mask: 'BILL{YYYY}{#####}',
};
