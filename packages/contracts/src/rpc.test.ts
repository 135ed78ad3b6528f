import { describe, expect, it } from 'vitest';
import { documentLookupAnswerSchema, purchaseDocumentLookupRequestSchema, salesDocumentLookupRequestSchema } from './rpc.js';

describe('document lookup contracts (rpc.sales/purchase.document.lookup)', () => {
  it('a request names its owner’s document type and an id or a number', () => {
    expect(salesDocumentLookupRequestSchema.parse({ type: 'sales_invoice', id: 7 })).toEqual({ type: 'sales_invoice', id: 7 });
    expect(purchaseDocumentLookupRequestSchema.parse({ type: 'purchase_vendor_credit', no: 'VC202600001' })).toMatchObject({ no: 'VC202600001' });
    expect(salesDocumentLookupRequestSchema.safeParse({ type: 'sales_credit_note' }).success).toBe(false);
    expect(salesDocumentLookupRequestSchema.safeParse({ type: 'sales_invoice', no: '' }).success).toBe(false);
    expect(salesDocumentLookupRequestSchema.safeParse({ type: 'purchase_bill', id: 1 }).success).toBe(false);
    expect(purchaseDocumentLookupRequestSchema.safeParse({ type: 'sales_invoice', id: 1 }).success).toBe(false);
  });

  it('the answer of a found and of an unknown document', () => {
    const found = { found: true, type: 'sales_invoice', id: 7, no: 'INV202600007', total_amount: 1210.5, amount_due: 10.5, currency: 'EUR', contact: { id: 3, business_name: 'A' } };
    expect(documentLookupAnswerSchema.parse(found)).toMatchObject(found);
    const missing = { found: false, type: 'purchase_bill', id: 9, no: null, total_amount: null, amount_due: null, currency: null, contact: null };
    expect(documentLookupAnswerSchema.parse(missing)).toMatchObject(missing);
    expect(documentLookupAnswerSchema.safeParse({ type: 'sales_invoice' }).success).toBe(false);
  });
});
