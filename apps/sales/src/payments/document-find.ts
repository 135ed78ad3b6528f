import type { EntityManager } from '@mikro-orm/postgresql';
import { documentFindRequestSchema, type DocumentFindAnswer, type MatchedBy } from '@ledgerline/contracts';
import { sqlRows } from '@ledgerline/service-kit';
import { lookupDocument } from './document-lookup.js';

/*
 * `rpc.sales.document.find` (bank statements, issue 17): the one open invoice a movement of money
 * in pays. Tried in order, each among the organisation's invoices in the movement's currency with
 * something still due:
 *   1. the variable symbol, as the invoice prints it (its payment reference when 1–10 digits,
 *      else the last ten digits of its number), leading zeros aside;
 *   2. the payment reference, as written;
 *   3. the amount due, among the invoices of the customers the payer's account paid for before
 *      when there are any, else among all.
 * Two invoices that fit one clue are told apart by the amount; when still more than one fits, the
 * clue matches nothing and the next is tried. No fit: `found: false`, and finance leaves the
 * movement in suspense.
 */

const VARIABLE_SYMBOL = `ltrim(case when coalesce(body->>'payment_reference', '') ~ '^[0-9]{1,10}$' then body->>'payment_reference'
  else right(regexp_replace(no, '[^0-9]', '', 'g'), 10) end, '0')`;

const notFound = (): DocumentFindAnswer => ({ found: false, type: 'sales_invoice', id: null, no: null, total_amount: null, amount_due: null, currency: null, contact: null, matched_by: null });

export async function findPaidInvoice(em: EntityManager, raw: unknown, orgId: number): Promise<DocumentFindAnswer> {
  const req = documentFindRequestSchema.parse(raw);
  const open = `org_id = ? and doc_type = 'sales_invoice' and amount_due > 0 and currency = ?`;
  const candidates = async (clue: string, params: unknown[]) =>
    sqlRows<{ id: string; amount_due: string }>(em, `select id, amount_due::text from sales_documents where ${open} and ${clue} order by id limit 20`, [orgId, req.currency, ...params]);
  const single = (rows: Array<{ id: string; amount_due: string }>) => {
    if (rows.length === 1) return Number(rows[0].id);
    const exact = rows.filter((r) => Number(r.amount_due).toFixed(2) === Number(req.amount).toFixed(2));
    return exact.length === 1 ? Number(exact[0].id) : null;
  };
  const tries: Array<[MatchedBy, () => Promise<number | null>]> = [
    ['variable_symbol', async () => (req.variable_symbol ? single(await candidates(`${VARIABLE_SYMBOL} = ltrim(?, '0')`, [req.variable_symbol])) : null)],
    ['payment_reference', async () => (req.payment_reference ? single(await candidates(`upper(trim(body->>'payment_reference')) = upper(trim(?))`, [req.payment_reference])) : null)],
    [
      'amount',
      async () => {
        const payers = req.contact_ids ?? [];
        if (payers.length > 0) {
          const theirs = await candidates(`amount_due = ?::numeric and customer_id = any(?::bigint[])`, [req.amount, `{${payers.join(',')}}`]);
          if (theirs.length > 0) return theirs.length === 1 ? Number(theirs[0].id) : null;
        }
        const all = await candidates(`amount_due = ?::numeric`, [req.amount]);
        return all.length === 1 ? Number(all[0].id) : null;
      },
    ],
  ];
  for (const [by, attempt] of tries) {
    const id = await attempt();
    if (id !== null) return { ...(await lookupDocument(em, { type: 'sales_invoice', id })), matched_by: by };
  }
  return notFound();
}
