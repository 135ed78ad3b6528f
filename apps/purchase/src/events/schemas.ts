import { z } from 'zod';

/*
 * What this service reads beyond the contracts: only the part of the organisation profile it keeps
 * (a tolerant reader), and the request of its document lookup responder.
 */

/** The part of `settings.organisation.updated` this service keeps. */
export const organisationUpdatedEventSchema = z.object({
  id: z.int(),
  legal_currency: z.string().regex(/^[A-Z]{3}$/),
});

/** Request of `rpc.purchase.document.lookup`. */
export const documentLookupRequestSchema = z
  .object({
    type: z.enum(['purchase_bill', 'purchase_vendor_credit']),
    id: z.int().nullish(),
    no: z.string().nullish(),
  })
  .refine((v) => v.id != null || (v.no != null && v.no !== ''), { message: 'give id or no' });
