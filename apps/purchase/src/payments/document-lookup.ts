import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentLookupAnswer, PurchaseDocumentLookupRequest } from '@ledgerline/contracts';
import { dec, roundMoney, sqlRows, toDb, toWire } from '@ledgerline/service-kit';
import type { PurchaseDocument } from '../db/entities.js';
import { DOCUMENT_TYPE_OF, kindOfDocumentType } from '../purchase-documents/document-types.js';

/*
 * What a lookup answers, read by one prepared statement (decision 116): the figures, the vendor's
 * id and name and the tax recap, not the whole document hydrated into an entity.
 */
const LOOKUP_COLUMNS = `kind, id, no, total_amount::text as total_amount, amount_due::text as amount_due, currency,
  vendor->'id' as vendor_id, vendor->'business_name' as vendor_name,
  tax_fx_rate::text as tax_fx_rate, taxes, subtotal_amount::text as subtotal_amount, precision,
  (select sum((a->>'amount')::numeric) from json_array_elements(advances) a)::text as advance_amount,
  (select sum((a->>'amount_leg')::numeric) from json_array_elements(advances) a)::text as advance_amount_leg`;
const BY = {
  id: `select ${LOOKUP_COLUMNS} from purchase_documents where org_id = ? and kind = any(?::text[]) and id = ?`,
  no: `select ${LOOKUP_COLUMNS} from purchase_documents where org_id = ? and kind = any(?::text[]) and no = ? order by kind = 'bill' desc, id limit 1`,
  both: `select ${LOOKUP_COLUMNS} from purchase_documents where org_id = ? and kind = any(?::text[]) and id = ? and no = ?`,
};

/** The stored kinds a lookup of a type finds: a bill's finds an advance bill too, answered as purchase_advance (decision 237). */
function kindsOf(type: PurchaseDocumentLookupRequest['type']): string {
  return type === 'purchase_bill' ? '{bill,advance}' : `{${kindOfDocumentType(type)}}`;
}

interface LookupRow {
  kind: PurchaseDocument['kind'];
  id: number | string;
  no: string;
  total_amount: string;
  amount_due: string;
  currency: string;
  vendor_id: unknown;
  vendor_name: unknown;
  tax_fx_rate: string;
  taxes: PurchaseDocument['taxes'];
  subtotal_amount: string;
  precision: number;
  advance_amount: string | null;
  advance_amount_leg: string | null;
}

/** Answer of `rpc.purchase.document.lookup`. */
export async function lookupDocument(em: EntityManager, req: PurchaseDocumentLookupRequest, orgId: number): Promise<DocumentLookupAnswer> {
  const kind = kindsOf(req.type);
  const no = req.no ? req.no : null;
  const [doc] =
    req.id != null && no !== null
      ? await sqlRows<LookupRow>(em, BY.both, [orgId, kind, req.id, no], { prepared: true })
      : req.id != null
        ? await sqlRows<LookupRow>(em, BY.id, [orgId, kind, req.id], { prepared: true })
        : await sqlRows<LookupRow>(em, BY.no, [orgId, kind, no], { prepared: true });
  if (!doc) {
    return { found: false, type: req.type, id: req.id ?? null, no: req.no ?? null, total_amount: null, amount_due: null, currency: null, contact: null };
  }
  return {
    found: true,
    type: DOCUMENT_TYPE_OF[doc.kind],
    id: Number(doc.id),
    no: doc.no,
    total_amount: toWire(doc.total_amount),
    amount_due: toWire(doc.amount_due),
    currency: doc.currency.trim(),
    contact: { id: typeof doc.vendor_id === 'number' ? doc.vendor_id : null, business_name: typeof doc.vendor_name === 'string' ? doc.vendor_name : null },
    // purchase documents carry one rate to the legal currency (tax_fx_rate), quoted per 1 unit
    fx_rate: toWire(doc.tax_fx_rate),
    currency_coef: 1,
    total_amount_leg: toWire(purchaseTotalLeg({ taxes: doc.taxes, subtotalAmount: doc.subtotal_amount, taxFxRate: doc.tax_fx_rate, precision: doc.precision })),
    // a final bill's advances: payments clear the rest of it (issue 75)
    ...(doc.advance_amount_leg != null && { advance_amount: toWire(doc.advance_amount), advance_amount_leg: toWire(doc.advance_amount_leg) }),
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
