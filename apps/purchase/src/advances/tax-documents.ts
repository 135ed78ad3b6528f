import type { VendorBillRequestBody } from '@ledgerline/contracts/purchase';
import type { ComputedDocument } from '@ledgerline/documents';
import { isReverseChargeCategory, type TaxCategory } from '@ledgerline/core/tax-category';
import { BusinessRuleError, ConflictError, ValidationError, dec, sqlRows, type TenantContext } from '@ledgerline/service-kit';
import { sameVendor } from '../vendor-credits/vendor-credit-kind.js';
import type { PurchaseDeduction } from '../purchase-documents/kind.js';
import type { StoredTaxLine } from '../db/entities.js';

/*
 * The vendor's tax document on a payment of an advance bill (§28 ZDPH: the vendor owes the VAT on
 * the day the payment reached them, and a VAT payer buyer may claim it from that document). It
 * names its advance bill, which is locked: the same vendor and currency, not yet deducted by a
 * final bill, and all its tax documents together no more than what was paid on it. It documents
 * money already paid, so nothing is due on it.
 */

interface AdvanceRow {
  id: string;
  no: string;
  currency: string;
  amount_paid: string;
  settled_by_no: string | null;
  vendor: string | null;
  documented: string;
}

const at = (message: string, code: string) => [{ path: 'advance_bill_id', message, code }];

/** `ADVANCE_TAX_DOCUMENTS.deducts`: the advance bill checked and locked; the tax document paid by what it documents. */
export async function checkAdvanceTaxDocument(ctx: TenantContext, req: VendorBillRequestBody, computed: ComputedDocument, taxes: StoredTaxLine[]): Promise<PurchaseDeduction> {
  const advanceId = req.advance_bill_id;
  if (advanceId == null) throw new ValidationError('A tax document names its advance bill', [{ path: 'advance_bill_id', message: 'required for kind advance_tax_document', code: 'required' }]);
  if (req.advances?.length) throw new ValidationError('Only a standard bill deducts advances', [{ path: 'advances', message: 'not allowed on kind advance_tax_document', code: 'not_allowed' }]);
  // the ledger books the claim whole against 314: a partly deductible or self-assessed advance is not one this books
  for (const [i, item] of computed.items.entries()) {
    if (!dec(item.tax_deduction_ratio ?? 1).eq(1) || !dec(item.net_deduction_ratio ?? 1).eq(1)) {
      throw new BusinessRuleError('An advance tax document claims its VAT whole', 'advance_partly_deductible', [
        { path: `items.${i}.tax_deduction_ratio`, message: 'must be 1 on an advance tax document', code: 'advance_partly_deductible' },
      ]);
    }
  }
  if (taxes.some((t) => t.tax_category != null && isReverseChargeCategory(t.tax_category as TaxCategory))) {
    throw new BusinessRuleError('A reverse-charged advance is not taxed on its payment', 'advance_reverse_charge', [
      { path: 'items', message: 'reverse charge on an advance tax document', code: 'advance_reverse_charge' },
    ]);
  }
  const [advance] = await sqlRows<AdvanceRow>(
    ctx.em,
    `select a.id, a.no, trim(a.currency) as currency, a.amount_paid::text as amount_paid, a.settled_by_no, a.vendor::text as vendor,
            coalesce((select sum(t.total_amount) from purchase_documents t
                       where t.org_id = a.org_id and t.kind = 'advance_tax_document' and t.advance_bill_id = a.id), 0)::text as documented
       from purchase_documents a where a.org_id = ? and a.kind = 'advance' and a.id = ? for update`,
    [ctx.orgId, advanceId],
  );
  if (!advance) throw new BusinessRuleError(`Advance bill ${advanceId} does not exist`, 'advance_bill_not_found', at('no such advance bill in this organisation', 'advance_bill_not_found'));
  if (advance.settled_by_no) throw new ConflictError(`Advance bill ${advance.no} is already deducted by bill ${advance.settled_by_no}`, 'advance_already_deducted', at('already deducted', 'advance_already_deducted'));
  if (advance.currency !== computed.currency) {
    throw new BusinessRuleError(`Advance bill ${advance.no} is in ${advance.currency}, the tax document in ${computed.currency}`, 'currency_mismatch', at('another currency than the tax document', 'currency_mismatch'));
  }
  if (!sameVendor(JSON.parse(advance.vendor ?? 'null'), req.vendor as Record<string, unknown>)) {
    throw new BusinessRuleError(`Advance bill ${advance.no} is another vendor's`, 'vendor_mismatch', at('another vendor than the tax document', 'vendor_mismatch'));
  }
  const documented = dec(advance.documented).plus(computed.total_amount);
  if (documented.lt(0)) {
    throw new BusinessRuleError(`The tax documents of advance bill ${advance.no} would document less than nothing`, 'advance_tax_below_zero', at('takes back more than its tax documents documented', 'advance_tax_below_zero'));
  }
  if (dec(computed.total_amount).gt(0) && documented.gt(advance.amount_paid)) {
    throw new BusinessRuleError(
      `The tax documents of advance bill ${advance.no} would document ${documented.toFixed(computed.precision)}, more than the ${dec(advance.amount_paid).toFixed(computed.precision)} paid on it`,
      'advance_tax_exceeds_paid',
      at('more than was paid on the advance bill', 'advance_tax_exceeds_paid'),
    );
  }
  return {
    paid: computed.total_amount,
    own: { advanceBillId: Number(advance.id), advanceBillNo: advance.no },
    written: async (doc) => {
      await sqlRows(
        ctx.em,
        `update purchase_documents set tax_documents = (coalesce(tax_documents::jsonb, '[]'::jsonb) || jsonb_build_array(jsonb_build_object('id', ?::bigint, 'no', ?::text, 'vendor_doc_no', ?::text, 'total_amount', ?::numeric)))::json, updated_at = now()
          where org_id = ? and id = ?`,
        [doc.id, doc.no, doc.vendorDocNo, doc.totalAmount, ctx.orgId, Number(advance.id)],
      );
    },
  };
}
