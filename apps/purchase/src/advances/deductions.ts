import type { VendorBillRequestBody } from '@ledgerline/contracts/purchase';
import type { ComputedDocument } from '@ledgerline/documents';
import { BusinessRuleError, ConflictError, ValidationError, dec, sqlRows, type TenantContext } from '@ledgerline/service-kit';
import { advanceDeductionFigures, legalFiguresAfterAdvances, type AdvanceTaxDocument } from '@ledgerline/posted-documents';
import { sameVendor } from '../vendor-credits/vendor-credit-kind.js';
import type { PurchaseDeduction } from '../purchase-documents/kind.js';

/*
 * A final bill (the vendor's vyúčtování) deducting the advance bills it names (decision 237): its
 * total is the whole supply; what was paid on the advances counts as paid, so amount_due is what
 * is left; the input VAT their tax documents claimed is taken back rate by rate (the ledger posts
 * Dr 321 / Cr 314 / Cr 343 for it), so advance and final bill together claim the supply's VAT once.
 * The advance bills are locked in id order, checked and settled in the bill's transaction.
 */

interface AdvanceRow {
  id: string;
  no: string;
  vendor_doc_no: string | null;
  currency: string;
  settled_by_no: string | null;
  amount_paid: string;
  vendor: string | null;
}

interface TaxDocumentRow {
  advance_bill_id: string;
  id: string;
  no: string;
  total_amount: string;
  taxes: string | null;
}

const at = (i: number, message: string, code: string) => [{ path: `advances.${i}.bill_id`, message, code }];

/** `BILLS.deducts`: the advance bills a final bill names, checked and priced; null for a bill naming none. */
export async function billAdvanceDeductions(ctx: TenantContext, req: VendorBillRequestBody, computed: ComputedDocument): Promise<PurchaseDeduction | null> {
  if (req.advance_bill_id != null) {
    throw new ValidationError('Only a tax document names an advance bill', [{ path: 'advance_bill_id', message: 'only on kind advance_tax_document', code: 'not_allowed' }]);
  }
  const asked = (req.advances ?? []).map((a) => a.bill_id);
  if (asked.length === 0) return null;
  const { em, orgId } = ctx;
  const rows = await sqlRows<AdvanceRow>(
    em,
    `select id, no, vendor_doc_no, trim(currency) as currency, settled_by_no, amount_paid::text as amount_paid, vendor::text as vendor
       from purchase_documents where org_id = ? and kind = 'advance' and id = any(?::bigint[]) order by id for update`,
    [orgId, `{${asked.join(',')}}`],
  );
  const docs = await sqlRows<TaxDocumentRow>(
    em,
    `select advance_bill_id, id, no, total_amount::text as total_amount, taxes::text as taxes
       from purchase_documents where org_id = ? and kind = 'advance_tax_document' and advance_bill_id = any(?::bigint[]) order by id`,
    [orgId, `{${asked.join(',')}}`],
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const total = dec(computed.total_amount);
  // purchase documents carry one rate to the legal currency, per unit
  const legPerUnit = dec(computed.tax_fx_rate ?? 1);
  const entries = [];
  let sum = dec(0);
  for (const [i, id] of asked.entries()) {
    const a = byId.get(id);
    if (!a) throw new BusinessRuleError(`Advance bill ${id} does not exist`, 'advance_bill_not_found', at(i, 'no such advance bill in this organisation', 'advance_bill_not_found'));
    if (a.settled_by_no) throw new ConflictError(`Advance bill ${a.no} is already deducted by bill ${a.settled_by_no}`, 'advance_already_deducted', at(i, 'already deducted', 'advance_already_deducted'));
    if (a.currency !== computed.currency) throw new BusinessRuleError(`Advance bill ${a.no} is in ${a.currency}, the bill in ${computed.currency}`, 'currency_mismatch', at(i, 'another currency than the bill', 'currency_mismatch'));
    if (!sameVendor(JSON.parse(a.vendor ?? 'null'), req.vendor as Record<string, unknown>)) {
      throw new BusinessRuleError(`Advance bill ${a.no} is another vendor's`, 'vendor_mismatch', at(i, 'another vendor than the bill', 'vendor_mismatch'));
    }
    const paid = dec(a.amount_paid);
    if (!paid.gt(0)) throw new BusinessRuleError(`Nothing has been paid on advance bill ${a.no}`, 'advance_unpaid', at(i, 'nothing paid on it yet', 'advance_unpaid'));
    const own = docs.filter((d) => Number(d.advance_bill_id) === id);
    // a purchase tax line's legal values are stored on it; the total's legal value is their sum plus any untaxed rest
    const taxed: AdvanceTaxDocument[] = own.map((d) => {
      const taxes = JSON.parse(d.taxes ?? '[]') as AdvanceTaxDocument['taxes'];
      return { total_amount: d.total_amount, total_leg: taxes.reduce((s, t) => s.plus(t.tax_base_leg ?? t.tax_base).plus(t.tax_amount_leg ?? t.tax_amount), dec(0)).toString(), taxes };
    });
    sum = sum.plus(paid);
    entries.push({
      bill_id: id,
      bill_no: a.no,
      vendor_doc_no: a.vendor_doc_no,
      ...advanceDeductionFigures(paid, taxed, legPerUnit, computed.precision),
      tax_documents: own.map((d) => ({ id: Number(d.id), no: d.no })),
    });
  }
  if (sum.gt(total)) {
    throw new BusinessRuleError(`The advances deducted (${sum.toFixed(computed.precision)}) exceed the bill total (${total.toFixed(computed.precision)})`, 'advances_exceed_total', [
      { path: 'advances', message: 'more than the bill total', code: 'advances_exceed_total' },
    ]);
  }
  return {
    paid: sum.toString(),
    own: { advances: entries },
    taxes: legalFiguresAfterAdvances(computed, entries).taxes,
    written: async (bill) => {
      await sqlRows(
        em,
        `update purchase_documents set settled_by_id = ?, settled_by_no = ?, amount_due = 0, updated_at = now()
          where org_id = ? and kind = 'advance' and id = any(?::bigint[])`,
        [bill.id, bill.no, orgId, `{${asked.join(',')}}`],
      );
    },
  };
}
