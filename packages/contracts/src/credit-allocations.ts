import { z } from 'zod';
import { currencyCode, isoDate, isoDateTime, money, moneyAggregate } from './common.js';
import { pagedEnvelope, pagingQuery } from './paging.js';

/*
 * A credit (a sales credit note, a vendor credit) applied to an open document of the same party
 * (an invoice, a bill): both documents' amount_due fall by the amount, which settles them without
 * money moving (decision 148). Sales and purchase share the shapes; the field names are each
 * side's own words.
 */

/** The words of one side: `credit_note` is applied to an `invoice`. */
interface AllocationWords<C extends string, T extends string> {
  /** Component name prefix, e.g. `CreditNote`. */
  component: string;
  credit: C;
  target: T;
  creditLabel: string;
  targetLabel: string;
}

/**
 * A set-off of documents converted at different rates: each is settled at its own legal value
 * (in proportion to what it had open), and the difference is a realised gain or loss.
 */
const exchangeDifference = z
  .object({
    currency: currencyCode.describe('The legal currency'),
    credit_amount_leg: moneyAggregate.describe('The legal value the credit is settled at'),
    target_amount_leg: moneyAggregate.describe('The legal value the document is settled at'),
    result: moneyAggregate.describe('The gain (663, positive) or loss (563, negative), posted in a journal entry of kind fx_settlement on the set-off date'),
  })
  .meta({ id: 'AllocationExchangeDifference' });

const documentRef = (label: string) =>
  z.object({ id: z.int().min(1).describe(`The ${label}'s id`), no: z.string().describe(`The ${label}'s number`) });

/** The schemas of one side's allocations: request, the allocation, its page and the paths. */
export function creditAllocationSchemas<C extends string, T extends string>(w: AllocationWords<C, T>) {
  const targetField = `${w.target}_id` as `${T}_id`;
  const request = z
    .object({
      [targetField]: z
        .int()
        .min(1)
        .max(Number.MAX_SAFE_INTEGER)
        .describe(`The open ${w.targetLabel} the ${w.creditLabel} is applied to: same ${w.credit === 'credit_note' ? 'customer' : 'vendor'} and currency (at another exchange rate, the difference is posted: exchange_difference)`),
      amount: money
        .positive()
        .optional()
        .describe(`Amount to apply, at most what is still due on both documents and at most their precision in decimals; when absent, the smaller of the two amounts due`),
      date: isoDate.optional().describe('Date of the set-off, on or after both documents were issued; today (UTC) when absent'),
    } as unknown as { [K in `${T}_id`]: z.ZodNumber } & { amount: z.ZodOptional<z.ZodNumber>; date: z.ZodOptional<typeof isoDate> })
    .meta({ id: `${w.component}AllocationRequest`, description: `Apply a ${w.creditLabel} to an open ${w.targetLabel}` });
  const allocation = z
    .object({
      id: z.int().min(1),
      [w.credit]: documentRef(w.creditLabel),
      [w.target]: documentRef(w.targetLabel),
      amount: money.describe('Amount applied, in the documents\u2019 currency'),
      currency: currencyCode,
      date: isoDate.describe('Date of the set-off'),
      created_at: isoDateTime,
      removed_at: isoDateTime.nullable().describe('When the allocation was taken back (both amounts due restored); null while it stands'),
      exchange_difference: exchangeDifference.nullish().describe('Documents converted at different rates: the legal value each is settled at and the difference posted; null at one rate'),
    } as unknown as { id: z.ZodInt } & { [K in C | T]: ReturnType<typeof documentRef> } & {
      amount: typeof money;
      currency: typeof currencyCode;
      date: typeof isoDate;
      created_at: typeof isoDateTime;
      removed_at: z.ZodNullable<typeof isoDateTime>;
      exchange_difference: z.ZodOptional<z.ZodNullable<typeof exchangeDifference>>;
    })
    .meta({
      id: `${w.component}Allocation`,
      description: `A ${w.creditLabel} applied to an ${w.targetLabel}: both amounts due reduced by \`amount\`, no money moved; a ledger entry only when the two were converted at different rates (the exchange difference, to 563 or 663)`,
    });
  return {
    request,
    allocation,
    page: pagedEnvelope(allocation),
    listQuery: z.object({ ...pagingQuery(100) }),
    path: z.object({
      id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe(`${w.creditLabel[0]!.toUpperCase()}${w.creditLabel.slice(1)} id`),
      allocation_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('Allocation id'),
    }),
  };
}

export const creditNoteAllocation = creditAllocationSchemas({ component: 'CreditNote', credit: 'credit_note', target: 'invoice', creditLabel: 'credit note', targetLabel: 'invoice' });
export const vendorCreditAllocation = creditAllocationSchemas({ component: 'VendorCredit', credit: 'vendor_credit', target: 'bill', creditLabel: 'vendor credit', targetLabel: 'bill' });

export type CreditNoteAllocationRequest = z.infer<typeof creditNoteAllocation.request>;
export type CreditNoteAllocation = z.infer<typeof creditNoteAllocation.allocation>;
export type VendorCreditAllocationRequest = z.infer<typeof vendorCreditAllocation.request>;
export type VendorCreditAllocation = z.infer<typeof vendorCreditAllocation.allocation>;
