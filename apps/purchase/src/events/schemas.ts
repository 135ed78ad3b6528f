import { z } from 'zod';

/*
 * What this service reads beyond the contracts: only the part of the organisation profile it keeps
 * (a tolerant reader). The document lookup request and answer are in @ledgerline/contracts (rpc.ts).
 */

/** The part of `settings.organisation.updated` this service keeps. */
export const organisationUpdatedEventSchema = z.object({
  id: z.int(),
  legal_currency: z.string().regex(/^[A-Z]{3}$/),
});
