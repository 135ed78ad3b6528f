import { defersTransaction, keysetPage, NotFoundError, readEntity, type EndpointHandlers, type TenantContext } from '@ledgerline/service-kit';
import { listAllocations } from '@ledgerline/posted-documents';
import type { BillKind } from '@ledgerline/contracts/purchase';
import { VENDOR_CREDIT_ALLOCATIONS } from '../vendor-credits/vendor-credit-kind.js';
import { ADVANCE_BILLS, ADVANCE_TAX_DOCUMENTS } from '../advances/kinds.js';
import { BILL_STORED_KINDS, PurchaseDocumentSchema } from '../db/entities.js';
import { listPurchaseDocuments, type PurchaseListQuery } from '../purchase-documents/list.js';
import { postPurchaseDocument } from '../purchase-documents/post.js';
import { readPurchaseRequest } from '../purchase-documents/request.js';
import { documentView } from '../purchase-documents/view.js';
import { BILLS } from './bill-kind.js';
import { importEInvoice } from './import.js';
import type { S3Store } from '@ledgerline/posted-documents';

/** The kind a bill's `kind` names (decision 237). */
const BILL_KIND = { standard: BILLS, advance: ADVANCE_BILLS, advance_tax_document: ADVANCE_TAX_DOCUMENTS } as const;
const STORED_KIND: Record<BillKind, (typeof BILL_STORED_KINDS)[number]> = { standard: 'bill', advance: 'advance', advance_tax_document: 'advance_tax_document' };

/** A bill of any kind: the body is read once (a copy merged in), then posted by the kind it names. */
async function createBill(ctx: TenantContext, raw: unknown, strict: boolean | undefined) {
  const req = await readPurchaseRequest(ctx.em, BILLS, raw);
  const kind = BILL_KIND[req.kind ?? 'standard'];
  return (await postPurchaseDocument(ctx, kind, req, { strict })).json;
}

/** One bill of any kind in the organisation (a vendor credit's id is not found, as another organisation's). */
async function getBill(ctx: TenantContext, id: number) {
  const d = await readEntity(ctx.em, PurchaseDocumentSchema, ctx.orgId, id);
  if (!d || !(BILL_STORED_KINDS as readonly string[]).includes(d.kind)) throw new NotFoundError(`No vendor bill ${id} in this organisation`, 'bill_not_found');
  return documentView(d);
}

async function listBills(ctx: TenantContext, q: PurchaseListQuery & { kind?: BillKind[] }) {
  const kinds = q.kind?.length ? q.kind.map((k) => STORED_KIND[k]) : [...BILL_STORED_KINDS];
  const listed = await listPurchaseDocuments(ctx, kinds, q);
  return keysetPage(listed.rows.map(documentView), listed, q);
}

/** `/v1/purchase/bills`: bills of every kind on the shared purchase-document steps, the e-invoice import, and the vendor credits applied to a bill. */
export function billRoutes(store: S3Store | null): Pick<EndpointHandlers<'purchase'>, 'createBill' | 'listBills' | 'getBill' | 'importBill' | 'listBillAllocations'> {
  return {
    createBill: defersTransaction(({ ctx, input }) => createBill(ctx, input.raw, input.query.strict)),
    listBills: ({ ctx, input }) => listBills(ctx, input.query),
    getBill: ({ ctx, input }) => getBill(ctx, input.params.id),
    importBill: ({ ctx, input }) => importEInvoice(ctx, input.body, input.query, store),
    listBillAllocations: ({ ctx, input: { params, query } }) => listAllocations(ctx, VENDOR_CREDIT_ALLOCATIONS, 'target', params.id, query),
  };
}
