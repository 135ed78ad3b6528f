import { BusinessRuleError, NotFoundError, ValidationError } from '@ledgerline/service-kit';
import { dec, roundMoney, toDb, toWire, type Dec, type DecimalInput } from '@ledgerline/service-kit';
import { sqlRows } from '@ledgerline/service-kit';
import type { TenantContext } from '@ledgerline/service-kit';
import { figuresAfterPayment } from './payment-application.js';
import { postingSettingsOf, refuseClosedPeriod } from '@ledgerline/service-kit';

/**
 * How one service's credits are applied to its open documents (decision 148): a sales credit note
 * to an invoice of the same customer, a vendor credit to a bill of the same vendor. The
 * differences between services, as data; the tables and columns are the service's own, written
 * into the statements (never anything a request sent). `V` is the allocation as the service's
 * contract types it (the view below, keyed by `words`).
 */
export interface AllocationRule<V extends object = AllocationView> {
  /** The documents' table: `id`, `org_id`, `no`, `currency`, `precision`, `date_issued`, `total_amount`, `amount_paid`, `amount_due`, `payment_status`. */
  table: string;
  /** The column telling documents' kinds apart, the credits' kind and the kind they apply to. */
  kindColumn: string;
  credit: string;
  target: string;
  /** SQL of a document's party over the row `d` (e.g. `d.body->'customer'`). */
  party: string;
  /** Whether two stored documents' parties are the same one. */
  sameParty: (a: Record<string, unknown> | null | undefined, b: Record<string, unknown> | null | undefined) => boolean;
  /** SQL of the rates a document's legal figures were converted at, as one text over `d`. */
  rates: string;
  /** SQL of a document's total in the legal currency (as the ledger posted it) over `d`. */
  totalLeg: string;
  /** Whose documents: a customer's (on 311, a receivable) or a vendor's (on 321, a payable). */
  side: 'receivable' | 'payable';
  /** The allocations' table: `id`, `org_id`, `credit_id`, `target_id`, `amount`, `currency`, `date`, `created_at`, `removed_at`. */
  allocations: string;
  /** A column of the documents stamped with the time of a change (e.g. `updated_at`). */
  touchColumn?: string;
  /** Field names of the answer and the request (`credit_note`, `invoice`, `invoice_id`) and words of the messages. */
  words: { credit: string; target: string; creditLabel: string; targetLabel: string; party: string };
  /** The 404 codes of an unknown credit and an unknown document (the codes their own reads answer). */
  creditNotFound: string;
  targetNotFound: string;
  /**
   * Subject of the allocation's events: when made and when taken back, one subject so that the two
   * of one allocation are consumed (and delivered to webhooks) in the order they happened.
   */
  subject: string;
  /** Carries V (never set). */
  readonly view?: V;
}

/** An allocation as answered and as its events carry it, keyed by the rule's words. */
export type AllocationView = Record<string, unknown>;

interface DocumentRow {
  id: string | number;
  kind: string;
  no: string;
  currency: string;
  precision: number;
  date_issued: string;
  total_amount: string;
  amount_paid: string;
  amount_due: string;
  party: Record<string, unknown> | null;
  rates: string | null;
  total_leg: string | null;
}

interface AllocationRow {
  id: string | number;
  credit_id: string | number;
  target_id: string | number;
  credit_no: string;
  target_no: string;
  amount: string;
  currency: string;
  date: string;
  created_at: Date | string;
  removed_at: Date | string | null;
  legal_currency: string | null;
  credit_amount_leg: string | null;
  target_amount_leg: string | null;
  fx_result: string | null;
}

const ISO = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString();

function viewOf<V extends object>(rule: AllocationRule<V>, row: AllocationRow): V {
  return {
    id: Number(row.id),
    [rule.words.credit]: { id: Number(row.credit_id), no: row.credit_no },
    [rule.words.target]: { id: Number(row.target_id), no: row.target_no },
    amount: toWire(row.amount),
    currency: row.currency.trim(),
    date: row.date,
    created_at: ISO(row.created_at),
    removed_at: row.removed_at === null ? null : ISO(row.removed_at),
    exchange_difference:
      row.fx_result === null
        ? null
        : { currency: row.legal_currency!.trim(), credit_amount_leg: toWire(row.credit_amount_leg), target_amount_leg: toWire(row.target_amount_leg), result: toWire(row.fx_result) },
  } as V;
}

/**
 * The credit and the document, locked until commit in id order (the order a second allocation
 * takes them in; a payment locks its one document), so concurrent settlements of one document
 * are judged one after another.
 */
async function lockDocuments(ctx: TenantContext, rule: AllocationRule<object>, creditId: number, targetId: number | null): Promise<{ credit: DocumentRow | null; target: DocumentRow | null }> {
  const rows = await sqlRows<DocumentRow>(
    ctx.em,
    `select d.id, d.${rule.kindColumn} as kind, d.no, d.currency, d.precision, to_char(d.date_issued, 'YYYY-MM-DD') as date_issued,
            d.total_amount::text as total_amount, d.amount_paid::text as amount_paid, d.amount_due::text as amount_due,
            ${rule.party} as party, ${rule.rates} as rates, (${rule.totalLeg})::text as total_leg
       from ${rule.table} d
      where d.org_id = ? and ((d.id = ? and d.${rule.kindColumn} = ?) or (d.id = ? and d.${rule.kindColumn} = ?))
      order by d.id
        for update of d`,
    [ctx.orgId, creditId, rule.credit, targetId ?? -1, rule.target],
  );
  const find = (id: number | null, kind: string) => rows.find((r) => Number(r.id) === id && r.kind === kind) ?? null;
  return { credit: find(creditId, rule.credit), target: find(targetId, rule.target) };
}

function creditNotFound(rule: AllocationRule<object>, id: number): NotFoundError {
  return new NotFoundError(`No ${rule.words.creditLabel} ${id} in this organisation`, rule.creditNotFound);
}

/** Moves a document's amount paid by `delta` (positive settles it), its amount due and status following. */
async function settle(ctx: TenantContext, rule: AllocationRule<object>, doc: DocumentRow, delta: Dec): Promise<void> {
  const after = figuresAfterPayment({ totalAmount: doc.total_amount, amountPaid: doc.amount_paid, precision: doc.precision }, delta);
  const touch = rule.touchColumn ? `, ${rule.touchColumn} = ?` : '';
  await sqlRows(
    ctx.em,
    `update ${rule.table} set amount_paid = ?, amount_due = ?, payment_status = ?${touch} where org_id = ? and id = ?`,
    [after.amountPaid, after.amountDue, after.paymentStatus, ...(rule.touchColumn ? [ctx.now()] : []), ctx.orgId, Number(doc.id)],
  );
}

/**
 * The legal value `amount` settles on a document: what its legal total cleared in proportion to
 * what it had paid, before and after (`round(total_leg × paid / total)`, the rule payments clear
 * by), so a document settled in any number of parts is cleared at exactly its legal total.
 */
export function legalSettled(doc: { total: DecimalInput; totalLeg: DecimalInput; paid: DecimalInput }, amount: DecimalInput): Dec {
  return legalCleared(doc.total, doc.totalLeg, dec(doc.paid).plus(dec(amount))).minus(legalCleared(doc.total, doc.totalLeg, doc.paid));
}

/** What `paid` of a document's `total` has cleared of its legal total: round(total_leg × paid / total); nil for a nil total. */
export function legalCleared(total: DecimalInput, totalLeg: DecimalInput, paid: DecimalInput): Dec {
  const t = dec(total);
  return t.isZero() ? dec(0) : roundMoney(dec(totalLeg).times(dec(paid)).div(t));
}

/**
 * Each document's legal value of the set-off and the result for the organisation: clearing more
 * of a receivable (a sales invoice) than the credit note's value is a loss, clearing more of a
 * payable (a bill) than the vendor credit's value a gain.
 */
function exchangeDifference(rule: AllocationRule<object>, credit: DocumentRow, target: DocumentRow, amount: Dec): { creditLeg: string; targetLeg: string; result: string } | null {
  if (credit.total_leg == null || target.total_leg == null) return null;
  const creditLeg = legalSettled({ total: credit.total_amount, totalLeg: credit.total_leg, paid: credit.amount_paid }, amount);
  const targetLeg = legalSettled({ total: target.total_amount, totalLeg: target.total_leg, paid: target.amount_paid }, amount);
  const result = rule.side === 'receivable' ? creditLeg.minus(targetLeg) : targetLeg.minus(creditLeg);
  if (result.isZero()) return null;
  return { creditLeg: toDb(creditLeg), targetLeg: toDb(targetLeg), result: toDb(result) };
}

const refuse = (message: string, code: string, path: string) => new BusinessRuleError(message, code, [{ path, message, code }]);

/** The amount an allocation applies: the one asked for, checked against both amounts due, or the smaller of the two. */
export function allocationAmount(
  rule: Pick<AllocationRule, 'words'>,
  credit: { amountDue: string; precision: number; no: string },
  target: { amountDue: string; precision: number; no: string },
  asked: number | undefined,
): Dec {
  const creditDue = dec(credit.amountDue);
  const targetDue = dec(target.amountDue);
  if (asked === undefined) {
    const amount = creditDue.lt(targetDue) ? creditDue : targetDue;
    if (amount.lte(0)) {
      const settled = creditDue.lte(0) ? `${rule.words.creditLabel} ${credit.no}` : `${rule.words.targetLabel} ${target.no}`;
      throw refuse(`Nothing to allocate: nothing is due on ${settled}`, 'nothing_to_allocate', `${rule.words.target}_id`);
    }
    return amount;
  }
  const amount = dec(String(asked));
  const places = Math.min(credit.precision, target.precision);
  if (amount.decimalPlaces() > places) {
    throw new ValidationError(`amount has more decimals than the documents (${places})`, [{ path: 'amount', message: `at most ${places} decimals, the documents' precision`, code: 'too_precise' }]);
  }
  if (amount.gt(creditDue)) {
    throw refuse(`${amount.toFixed()} is more than is left of ${rule.words.creditLabel} ${credit.no} (${creditDue.toFixed()})`, 'allocation_exceeds_credit', 'amount');
  }
  if (amount.gt(targetDue)) {
    throw refuse(`${amount.toFixed()} is more than is due on ${rule.words.targetLabel} ${target.no} (${targetDue.toFixed()})`, 'allocation_exceeds_due', 'amount');
  }
  return amount;
}

/**
 * Applies a credit to an open document of its party: both documents' amount paid rise by the
 * amount (so their amount due fall), the allocation is recorded and its event emitted, in the
 * request's transaction. Nothing reaches the ledger: the credit and the document sit on the same
 * control account (311, 321), whose balance the two postings already net.
 */
export async function allocateCredit<V extends object>(
  ctx: TenantContext,
  rule: AllocationRule<V>,
  creditId: number,
  req: { targetId: number; amount?: number; date?: string },
): Promise<V> {
  const targetField = `${rule.words.target}_id`;
  const { credit, target } = await lockDocuments(ctx, rule, creditId, req.targetId);
  if (!credit) throw creditNotFound(rule, creditId);
  if (!target) throw refuse(`No ${rule.words.targetLabel} ${req.targetId} in this organisation`, `${rule.words.target}_not_found`, targetField);
  if (!rule.sameParty(credit.party, target.party)) {
    throw refuse(`${rule.words.targetLabel} ${target.no} is not of the ${rule.words.party} of ${rule.words.creditLabel} ${credit.no}`, `${rule.words.party}_mismatch`, targetField);
  }
  const currency = credit.currency.trim();
  if (target.currency.trim() !== currency) {
    throw refuse(`${rule.words.targetLabel} ${target.no} is in ${target.currency.trim()}, ${rule.words.creditLabel} ${credit.no} in ${currency}`, 'currency_mismatch', targetField);
  }
  const date = req.date ?? ctx.now().toISOString().slice(0, 10);
  const issued = credit.date_issued > target.date_issued ? credit.date_issued : target.date_issued;
  if (date < issued) throw refuse(`The set-off cannot be dated before both documents were issued (${issued})`, 'allocation_before_issue', 'date');
  refuseClosedPeriod((await postingSettingsOf(ctx)).lockDate, 'the set-off', [{ field: 'date', date }]);
  const amount = allocationAmount(
    rule,
    { amountDue: credit.amount_due, precision: credit.precision, no: credit.no },
    { amountDue: target.amount_due, precision: target.precision, no: target.no },
    req.amount,
  );
  // At different rates one amount is worth another legal value on each document: each is settled
  // at its own, and the difference is a realised exchange gain or loss the ledger posts.
  const books = await postingSettingsOf(ctx);
  const fx = (credit.rates ?? '') !== (target.rates ?? '') ? exchangeDifference(rule, credit, target, amount) : null;
  await settle(ctx, rule, credit, amount);
  await settle(ctx, rule, target, amount);
  const [row] = await sqlRows<{ id: string | number; created_at: Date }>(
    ctx.em,
    `insert into ${rule.allocations} (org_id, credit_id, target_id, amount, currency, date, created_at, legal_currency, credit_amount_leg, target_amount_leg, fx_result)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id, created_at`,
    [ctx.orgId, Number(credit.id), Number(target.id), toDb(amount, Math.max(credit.precision, target.precision)), currency, date, ctx.now(), fx ? books.legalCurrency : null, fx?.creditLeg ?? null, fx?.targetLeg ?? null, fx?.result ?? null],
  );
  const view = viewOf(rule, {
    id: row!.id,
    credit_id: credit.id,
    target_id: target.id,
    credit_no: credit.no,
    target_no: target.no,
    amount: amount.toFixed(),
    currency,
    date,
    created_at: row!.created_at,
    removed_at: null,
    legal_currency: fx ? books.legalCurrency : null,
    credit_amount_leg: fx?.creditLeg ?? null,
    target_amount_leg: fx?.targetLeg ?? null,
    fx_result: fx?.result ?? null,
  });
  await ctx.emit({ subject: rule.subject, orgId: ctx.orgId, resource: String(row!.id), data: view });
  return view;
}

const ALLOCATION_COLUMNS = (rule: AllocationRule<object>) => `a.id, a.credit_id, a.target_id, c.no as credit_no, t.no as target_no, a.amount::text as amount, a.currency,
       to_char(a.date, 'YYYY-MM-DD') as date, a.created_at, a.removed_at, a.legal_currency,
       a.credit_amount_leg::text as credit_amount_leg, a.target_amount_leg::text as target_amount_leg, a.fx_result::text as fx_result
  from ${rule.allocations} a
  join ${rule.table} c on c.org_id = a.org_id and c.id = a.credit_id
  join ${rule.table} t on t.org_id = a.org_id and t.id = a.target_id`;

/**
 * Takes an allocation back: both documents' amounts due return to what they would be without it,
 * the allocation keeps its row with `removed_at`, and the removal is an event. Taking back one
 * already taken back answers it as it is and changes nothing.
 */
export async function removeAllocation<V extends object>(ctx: TenantContext, rule: AllocationRule<V>, creditId: number, allocationId: number): Promise<V> {
  const [found] = await sqlRows<{ target_id: string | number }>(
    ctx.em,
    `select target_id from ${rule.allocations} where org_id = ? and credit_id = ? and id = ?`,
    [ctx.orgId, creditId, allocationId],
  );
  if (!found) throw new NotFoundError(`No allocation ${allocationId} of ${rule.words.creditLabel} ${creditId} in this organisation`, 'allocation_not_found');
  // the documents first, in the order every settlement locks them, then the allocation
  const { credit, target } = await lockDocuments(ctx, rule, creditId, Number(found.target_id));
  const [row] = await sqlRows<AllocationRow>(ctx.em, `select ${ALLOCATION_COLUMNS(rule)} where a.org_id = ? and a.id = ? for update of a`, [ctx.orgId, allocationId]);
  if (!credit || !target || !row) throw new NotFoundError(`No allocation ${allocationId} of ${rule.words.creditLabel} ${creditId} in this organisation`, 'allocation_not_found');
  if (row.removed_at !== null) return viewOf(rule, row);
  // what the documents owed on a day of a closed period stays as it was reported
  refuseClosedPeriod((await postingSettingsOf(ctx)).lockDate, `taking back allocation ${allocationId}`, [{ field: 'allocation_id', date: row.date }]);
  const amount = dec(row.amount);
  await settle(ctx, rule, credit, amount.negated());
  await settle(ctx, rule, target, amount.negated());
  const removedAt = ctx.now();
  await sqlRows(ctx.em, `update ${rule.allocations} set removed_at = ? where org_id = ? and id = ?`, [removedAt, ctx.orgId, allocationId]);
  const view = viewOf(rule, { ...row, removed_at: removedAt });
  await ctx.emit({ subject: rule.subject, orgId: ctx.orgId, resource: String(allocationId), data: view });
  return view;
}

/**
 * The allocations of a credit (`side: 'credit'`) or those made to a document (`'target'`), oldest
 * first, those taken back included; 404 for a document the organisation does not have.
 */
export async function listAllocations<V extends object>(
  ctx: TenantContext,
  rule: AllocationRule<V>,
  side: 'credit' | 'target',
  documentId: number,
  paging: { from: number; take: number },
): Promise<{ total: number; from: number; take: number; entities: V[]; aggregations: unknown[] }> {
  const column = side === 'credit' ? 'credit_id' : 'target_id';
  const [doc] = await sqlRows<{ total: string }>(
    ctx.em,
    `select (select count(*) from ${rule.allocations} a where a.org_id = d.org_id and a.${column} = d.id) as total
       from ${rule.table} d where d.org_id = ? and d.id = ? and d.${rule.kindColumn} = ?`,
    [ctx.orgId, documentId, side === 'credit' ? rule.credit : rule.target],
  );
  if (!doc) {
    if (side === 'credit') throw creditNotFound(rule, documentId);
    throw new NotFoundError(`No ${rule.words.targetLabel} ${documentId} in this organisation`, rule.targetNotFound);
  }
  const rows =
    paging.take === 0
      ? []
      : await sqlRows<AllocationRow>(ctx.em, `select ${ALLOCATION_COLUMNS(rule)} where a.org_id = ? and a.${column} = ? order by a.id offset ? limit ?`, [ctx.orgId, documentId, paging.from, paging.take]);
  return { total: Number(doc.total), from: paging.from, take: paging.take, entities: rows.map((r) => viewOf(rule, r)), aggregations: [] };
}
