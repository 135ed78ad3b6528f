import { z } from 'zod';
import { currencyCode, int64, isoDate, moneyAggregate } from './common.js';
import { pagedEnvelope, pagingQuery } from './paging.js';

/*
 * Who owes what, and for how long (decision 161): aged receivables (sales) and aged payables
 * (purchase) share their shapes; each side names its party in its own words. And how one
 * customer's balance moved over a period: its statement of account (decision 162).
 */

export const agedBalancesQuerySchema = z.object({
  as_of: isoDate.optional().describe('The balances as they stood at the end of this day: documents issued by then, payments and allocations dated by then (default today, UTC)'),
  currency: currencyCode.optional().describe('Only documents in this currency'),
  ...pagingQuery(100),
});
export type AgedBalancesQuery = z.output<typeof agedBalancesQuerySchema>;

const figures = {
  current: moneyAggregate.describe('Not yet due (due on or after as_of)'),
  days_1_30: moneyAggregate.describe('1–30 days overdue'),
  days_31_60: moneyAggregate.describe('31–60 days overdue'),
  days_61_90: moneyAggregate.describe('61–90 days overdue'),
  days_over_90: moneyAggregate.describe('More than 90 days overdue'),
  total: moneyAggregate.describe('Σ of the buckets'),
};

/** The shapes of one side: a party's line and the page with each currency's totals. */
export function agedBalancesSchemas(w: { component: string; party: string; documents: string; credits: string }) {
  const line = z
    .object({
      contact: z
        .object({ id: int64.nullable().describe(`The ${w.party}'s id (null when the documents name none)`), name: z.string().nullable() })
        .describe(`The ${w.party}: documents are summed by its id, else by its name`),
      currency: currencyCode,
      documents: z.int().min(0).describe('Open documents summed in the line'),
      ...figures,
    })
    .meta({ id: `${w.component}`, description: `What one ${w.party} owes in one currency, by how long it is overdue: open ${w.documents} positive, unapplied ${w.credits} negative` });
  const page = pagedEnvelope(line)
    .extend({
      as_of: isoDate,
      totals: z.array(z.object({ currency: currencyCode, ...figures }).meta({ id: `${w.component}Totals` })).describe('Each currency over all the lines, not only this page'),
    })
    .meta({ id: `${w.component}s`, description: `The ${w.party} lines, largest total first, with each currency's totals` });
  return { line, page };
}

export const agedReceivables = agedBalancesSchemas({ component: 'AgedReceivable', party: 'customer', documents: 'invoices', credits: 'credit notes' });
export const agedPayables = agedBalancesSchemas({ component: 'AgedPayable', party: 'vendor', documents: 'bills', credits: 'vendor credits' });

// --- a customer's statement of account (decision 162) -----------------------------------------

export const customerStatementQuerySchema = z.object({
  customer_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe("The customer's id, as the documents name it (customer.id)"),
  date_from: isoDate.describe('First day of the statement'),
  date_to: isoDate.describe('Last day of the statement, on or after date_from'),
  currency: currencyCode.optional().describe('Only this currency'),
});
export type CustomerStatementQuery = z.output<typeof customerStatementQuerySchema>;

export const customerStatementLineSchema = z
  .object({
    date: isoDate.describe("The document's issue day, or the payment's day"),
    kind: z.enum(['invoice', 'credit_note', 'payment', 'refund']).describe('refund: money paid back against a credit note'),
    document: z.object({ type: z.enum(['sales_invoice', 'sales_credit_note']), id: int64, no: z.string() }).describe('The document, or the document the payment paid'),
    payment: z.object({ id: int64, source: z.string() }).nullable().describe("The payment's id at finance and where it came from (bank_transaction, payout_line)"),
    amount: moneyAggregate.describe('What the line moves the balance by: an invoice and a refund raise it, a credit note and a payment lower it (a payment taken back is a line of its own, the other way)'),
    balance: moneyAggregate.describe('The balance after the line'),
  })
  .meta({ id: 'CustomerStatementLine' });

export const customerStatementSchema = z
  .object({
    customer: z.object({ id: int64, name: z.string().nullable() }),
    date_from: isoDate,
    date_to: isoDate,
    currencies: z
      .array(
        z
          .object({
            currency: currencyCode,
            opening_balance: moneyAggregate.describe('What the customer owed at the end of the day before date_from (negative: what was owed to it)'),
            lines: z.array(customerStatementLineSchema),
            closing_balance: moneyAggregate.describe('What the customer owed at the end of date_to'),
          })
          .meta({ id: 'CustomerStatementCurrency' }),
      )
      .describe('One section per currency the customer has documents in'),
  })
  .meta({ id: 'CustomerStatement', description: "A customer's statement of account: what it owed at the start, each document and payment of the period, and what it owed at the end" });
export type CustomerStatement = z.infer<typeof customerStatementSchema>;
