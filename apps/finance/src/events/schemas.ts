import { z } from 'zod';

/*
 * The answer finance reads from the document owners' lookup responders (rpc.sales.document.lookup,
 * rpc.purchase.document.lookup). Not in packages/contracts yet.
 */

/** Answer of `rpc.sales.document.lookup` / `rpc.purchase.document.lookup`. */
export const documentLookupAnswerSchema = z.object({
  found: z.boolean(),
  type: z.string().nullish(),
  id: z.int().nullish(),
  no: z.string().nullish(),
  total_amount: z.number().nullish(),
  amount_due: z.number().nullish(),
  currency: z.string().nullish(),
  contact: z.object({ id: z.int().nullish(), business_name: z.string().nullish() }).nullish(),
});
export type DocumentLookupAnswer = z.infer<typeof documentLookupAnswerSchema>;
