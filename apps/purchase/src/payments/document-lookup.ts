import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentLookupAnswer, PurchaseDocumentLookupRequest } from '@ledgerline/contracts';
import { dec, roundMoney, toDb, toWire } from '@ledgerline/service-kit';
import { PurchaseDocumentSchema, type PurchaseDocument } from '../db/entities.js';
import { PURCHASE_KINDS, kindOfDocumentType } from '../purchase-documents/kinds.js';

/** Answer of `rpc.purchase.document.lookup`. */
export async function lookupDocument(em: EntityManager, req: PurchaseDocumentLookupRequest): Promise<DocumentLookupAnswer> {
  const kind = kindOfDocumentType(req.type)!;
  const where: Record<string, unknown> = { kind };
  if (req.id != null) where.id = req.id;
  if (req.no) where.no = req.no;
  const doc = await em.findOne(PurchaseDocumentSchema, where);
  if (!doc) {
    return { found: false, type: req.type, id: req.id ?? null, no: req.no ?? null, total_amount: null, amount_due: null, currency: null, contact: null };
  }
  const vendor = doc.vendor as { id?: number | null; business_name?: string | null };
  return {
    found: true,
    type: PURCHASE_KINDS[doc.kind].documentType,
    id: doc.id,
    no: doc.no,
    total_amount: toWire(doc.totalAmount),
    amount_due: toWire(doc.amountDue),
    currency: doc.currency.trim(),
    contact: { id: vendor.id ?? null, business_name: vendor.business_name ?? null },
    // purchase documents carry one rate to the legal currency (tax_fx_rate), quoted per 1 unit
    fx_rate: toWire(doc.taxFxRate),
    currency_coef: 1,
    total_amount_leg: toWire(purchaseTotalLeg(doc)),
  };
}

/**
 * Total in the legal currency as the ledger posts it: Σ of the recap's stored tax_base_leg and
 * tax_amount_leg, plus any untaxed remainder at tax_fx_rate.
 */
export function purchaseTotalLeg(doc: Pick<PurchaseDocument, 'taxes' | 'subtotalAmount' | 'taxFxRate' | 'precision'>): string {
  let base = dec(0);
  let leg = dec(0);
  for (const t of doc.taxes) {
    base = base.plus(dec(t.tax_base));
    leg = leg.plus(dec(t.tax_base_leg)).plus(dec(t.tax_amount_leg));
  }
  const untaxed = dec(doc.subtotalAmount).minus(base);
  if (!untaxed.isZero()) leg = leg.plus(roundMoney(untaxed.times(dec(doc.taxFxRate))));
  return toDb(leg);
}
