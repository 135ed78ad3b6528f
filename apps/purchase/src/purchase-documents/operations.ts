import type { z } from 'zod';
import { NotFoundError, keysetPage, readEntity, type TenantContext } from '@ledgerline/service-kit';
import { PurchaseDocumentSchema, type PurchaseKind } from '../db/entities.js';
import type { PurchaseDocumentKind, PurchaseRequestSchema } from './kind.js';
import { listPurchaseDocuments, type PurchaseListQuery } from './list.js';
import { postPurchaseDocument } from './post.js';
import { readPurchaseRequest } from './request.js';
import { purchaseView } from './view.js';

/** The operations every purchase document kind offers, for the kind's routes to map onto its operation ids. */
export function purchaseDocumentOperations<K extends PurchaseKind, S extends PurchaseRequestSchema>(kind: PurchaseDocumentKind<K, S>) {
  return {
    /** The raw body: `copy_from_id` fills the request from the copied document before it is parsed. */
    create: async (ctx: TenantContext, raw: unknown, strict: boolean | undefined) => {
      const req: z.output<S> = await readPurchaseRequest(ctx.em, kind, raw);
      return (await postPurchaseDocument(ctx, kind, req, { strict })).json;
    },
    /** One document of this kind in the organisation (another kind's id is not found, as another organisation's). */
    get: async (ctx: TenantContext, id: number) => {
      const d = await readEntity(ctx.em, PurchaseDocumentSchema, ctx.orgId, id);
      if (!d || d.kind !== kind.kind) throw new NotFoundError(`No ${kind.label} ${id} in this organisation`, `${kind.kind}_not_found`);
      return purchaseView(d, kind.kind);
    },
    list: async (ctx: TenantContext, q: PurchaseListQuery) => {
      const listed = await listPurchaseDocuments(ctx, [kind.kind], q);
      return keysetPage(listed.rows.map((d) => purchaseView(d, kind.kind)), listed, q);
    },
  };
}
