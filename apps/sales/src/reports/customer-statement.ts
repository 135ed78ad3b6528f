import type { CustomerStatement, CustomerStatementQuery } from '@ledgerline/contracts';
import { BusinessRuleError, dec, NotFoundError, refuseReversedPeriod, sqlRows, toWire, type Dec, type TenantContext } from '@ledgerline/service-kit';

/*
 * A customer's statement of account (decision 162): what it owed at the start of a period, every
 * invoice, credit note, payment and refund of the period with the balance after each, and what it
 * owed at the end, per currency. Credit allocations move nothing here: the credit note lowered the
 * balance when it was issued, and the set-off only says which invoice it settles.
 */

/** A statement is read whole: a period with more lines than this is asked for in shorter periods. */
export const MAX_STATEMENT_LINES = 5000;

export interface StatementMove {
  currency: string;
  date: string;
  kind: 'invoice' | 'credit_note' | 'payment' | 'refund';
  document: { type: 'sales_invoice' | 'sales_credit_note'; id: number; no: string };
  payment: { id: number; source: string } | null;
  /** Signed: what it moves the customer's balance by. */
  amount: Dec;
}

/**
 * The sections of the statement: one per currency that has an opening balance or a move, the
 * moves in the order given (by day, documents before the payments of their day), each with the
 * balance after it.
 */
export function statementSections(openings: ReadonlyMap<string, Dec>, moves: ReadonlyArray<StatementMove>) {
  const currencies = [...new Set([...openings.keys(), ...moves.map((m) => m.currency)])].sort();
  return currencies.map((currency) => {
    const opening = openings.get(currency) ?? dec(0);
    let balance = opening;
    const lines = moves
      .filter((m) => m.currency === currency)
      .map((m) => {
        balance = balance.plus(m.amount);
        return { ...m, balance };
      });
    return { currency, opening, lines, closing: balance };
  });
}

/**
 * Every move of the customer's documents up to the period's end: a document on its issue day
 * (a credit note negative), a payment on its own day (lowering an invoice's balance, a refund of a
 * credit note raising it; a payment taken back is a row of the opposite sign on the same day).
 */
const MOVES = `
  with docs as (
    select id, doc_type, no, trim(currency) as currency, date_issued, total_amount, customer_name
      from sales_documents where org_id = ? and customer_id = ? and date_issued <= ?::date and doc_type in ('sales_invoice', 'sales_credit_note')
  ), moves as (
    select d.currency, d.date_issued as date, 0 as ord, d.id as document_id, d.doc_type, d.no,
           case when d.doc_type = 'sales_credit_note' then 'credit_note' else 'invoice' end as kind,
           null::bigint as payment_id, null::text as source, null::bigint as row_id,
           case when d.doc_type = 'sales_credit_note' then -d.total_amount else d.total_amount end as amount
      from docs d
    union all
    select d.currency, p.date, 1, d.id, d.doc_type, d.no,
           case when d.doc_type = 'sales_credit_note' then 'refund' else 'payment' end,
           p.payment_id, p.source, p.id,
           case when d.doc_type = 'sales_credit_note' then p.amount else -p.amount end
      from sales_document_payments p join docs d on d.id = p.document_id
     where p.org_id = ? and p.date <= ?::date
  )`;

export async function customerStatement(ctx: TenantContext, q: CustomerStatementQuery): Promise<CustomerStatement> {
  refuseReversedPeriod(q);
  const { em, orgId } = ctx;
  const currency = q.currency ? ' and currency = ?' : '';
  const base = [orgId, q.customer_id, q.date_to, orgId, q.date_to];
  const [customer] = await sqlRows<{ name: string | null }>(
    em,
    `select customer_name as name from sales_documents where org_id = ? and customer_id = ? order by date_issued desc, id desc limit 1`,
    [orgId, q.customer_id],
  );
  if (!customer) throw new NotFoundError(`No document of customer ${q.customer_id} in this organisation`, 'customer_not_found');
  const openings = await sqlRows<{ currency: string; amount: string }>(
    em,
    `${MOVES} select currency, sum(amount)::text as amount from moves where date < ?::date${currency} group by currency`,
    [...base, q.date_from, ...(q.currency ? [q.currency] : [])],
  );
  const lines = await sqlRows<{ currency: string; date: string; kind: StatementMove['kind']; document_id: number; doc_type: StatementMove['document']['type']; no: string; payment_id: number | null; source: string | null; amount: string }>(
    em,
    `${MOVES} select currency, to_char(date, 'YYYY-MM-DD') as date, kind, document_id, doc_type, no, payment_id, source, amount::text as amount
       from moves where date >= ?::date${currency} order by date, ord, document_id, row_id nulls first limit ?`,
    [...base, q.date_from, ...(q.currency ? [q.currency] : []), MAX_STATEMENT_LINES + 1],
  );
  if (lines.length > MAX_STATEMENT_LINES) {
    throw new BusinessRuleError(`The statement has more than ${MAX_STATEMENT_LINES} lines; ask for a shorter period`, 'statement_too_long', [
      { path: 'date_from', message: `at most ${MAX_STATEMENT_LINES} lines per statement`, code: 'statement_too_long' },
    ]);
  }
  const sections = statementSections(
    new Map(openings.map((o) => [o.currency, dec(o.amount)])),
    lines.map((l) => ({
      currency: l.currency,
      date: l.date,
      kind: l.kind,
      document: { type: l.doc_type, id: Number(l.document_id), no: l.no },
      payment: l.payment_id === null ? null : { id: Number(l.payment_id), source: l.source ?? '' },
      amount: dec(l.amount),
    })),
  );
  return {
    customer: { id: q.customer_id, name: customer.name },
    date_from: q.date_from,
    date_to: q.date_to,
    currencies: sections.map((s) => ({
      currency: s.currency,
      opening_balance: toWire(s.opening),
      lines: s.lines.map((l) => ({ date: l.date, kind: l.kind, document: l.document, payment: l.payment, amount: toWire(l.amount), balance: toWire(l.balance) })),
      closing_balance: toWire(s.closing),
    })),
  };
}
