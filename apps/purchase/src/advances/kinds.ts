import { SUBJECTS } from '@ledgerline/contracts';
import { vendorBillRequestSchema, vendorBillSchema } from '@ledgerline/contracts/purchase';
import { ValidationError } from '@ledgerline/service-kit';
import type { PurchaseDocumentKind } from '../purchase-documents/kind.js';
import { checkAdvanceTaxDocument } from './tax-documents.js';

/*
 * The purchase side of advances (issue 75, decision 237), as bill kinds on the shared posting
 * steps: a vendor's proforma is recorded but never posted (not a tax document: nothing is claimed;
 * its payments go to 314), the vendor's tax document on a payment claims the input VAT
 * (Dr 343 / Cr 314), and a standard bill naming `advances` deducts them (BILLS.deducts).
 */

/** A vendor's proforma (zálohová faktura): numbered in its own series, payable, never posted. */
export const ADVANCE_BILLS: PurchaseDocumentKind<'advance', typeof vendorBillRequestSchema> = {
  kind: 'advance',
  documentType: 'purchase_advance',
  subject: null,
  label: 'advance bill',
  requestSchema: vendorBillRequestSchema,
  responseSchema: vendorBillSchema,
  mask: 'ADV{YYYY}{#####}',
  deducts: async (_ctx, req) => {
    for (const path of ['advance_bill_id', 'advances'] as const) {
      if (req[path] != null && !(Array.isArray(req[path]) && req[path].length === 0)) {
        throw new ValidationError(`An advance bill takes no ${path}`, [{ path, message: 'not allowed on kind advance', code: 'not_allowed' }]);
      }
    }
    return null;
  },
};

/** The vendor's tax document on a paid advance (daňový doklad k přijaté platbě): posted, its input VAT claimed; it documents money already paid. */
export const ADVANCE_TAX_DOCUMENTS: PurchaseDocumentKind<'advance_tax_document', typeof vendorBillRequestSchema> = {
  kind: 'advance_tax_document',
  documentType: 'purchase_advance_tax_document',
  subject: SUBJECTS.purchaseAdvanceTaxDocumentPosted,
  label: 'advance tax document',
  requestSchema: vendorBillRequestSchema,
  responseSchema: vendorBillSchema,
  mask: 'ATD{YYYY}{#####}',
  deducts: checkAdvanceTaxDocument,
};
