import { dec, toDb, toWire, type DecimalInput } from '@ledgerline/service-kit';
import { legalCleared } from './credit-allocation.js';
import { sqlRows } from '@ledgerline/service-kit';
import type { TenantContext } from '@ledgerline/service-kit';
import type { AllocationRule } from './credit-allocation.js';

/**
 * Who owes what, and for how long (decision 161): the open documents of a service summed per
 * party and currency into the usual ageing buckets, as they stood at the end of a day. The
 * differences between services, as data; tables and columns are the service's own.
 */
export interface AgingRule {
  /** The documents, their kinds (the credit kind counts negative) and the allocations between them. */
  documents: Pick<AllocationRule<object>, 'table' | 'kindColumn' | 'credit' | 'target' | 'allocations'>;
  /** SQL over the document row `d`: the party's id (null when the document names none) and name. */
  partyId: string;
  partyName: string;
  /** The payments applied to documents: their table, the column naming the document, and the payment's day. */
  payments: { table: string; document: string; date: string };
}

/** How overdue a document is at the end of the day: not yet due, then 30-day buckets and the rest. */
export const AGING_BUCKETS = ['current', 'days_1_30', 'days_31_60', 'days_61_90', 'days_over_90'] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];

export type AgedFigures = Record<AgingBucket | 'total', number>;
export interface AgedBalance extends AgedFigures {
  contact: { id: number | null; name: string | null };
  currency: string;
  documents: number;
}
export interface AgedBalances {
  as_of: string;
  totals: Array<AgedFigures & { currency: string }>;
  total: number;
  from: number;
  take: number;
  entities: AgedBalance[];
  aggregations: never[];
}

/**
 * The open amount of each document issued by the end of `as_of`, as it stood then: what is due
 * now, with the payments and allocations dated after the day added back (a payment taken back
 * carries its payment's day, so both fall on the same side; an allocation taken back never
 * counts). A credit counts negative. Documents fall due on `date_due`, else on their issue day.
 */
function openDocuments(rule: AgingRule, extraColumns = ''): string {
  const { table, kindColumn, credit, target, allocations } = rule.documents;
  const p = rule.payments;
  return `
  with later_paid as (
    select p.${p.document} as id, sum(p.amount) as amount from ${p.table} p where p.org_id = ? and p.${p.date} > ?::date group by 1
  ), later_allocated as (
    select id, sum(amount) as amount from (
      select credit_id as id, amount from ${allocations} where org_id = ? and date > ?::date and removed_at is null
      union all
      select target_id, amount from ${allocations} where org_id = ? and date > ?::date and removed_at is null
    ) a group by id
  ), open as (
    select coalesce('id:' || (${rule.partyId})::text, 'name:' || coalesce(${rule.partyName}, '')) as party, ${rule.partyId} as party_id, ${rule.partyName} as party_name,
           d.date_issued as issued, d.id, trim(d.currency) as currency,
           (d.amount_due + coalesce(lp.amount, 0) + coalesce(la.amount, 0)) * case when d.${kindColumn} = '${credit}' then -1 else 1 end as amount,
           ?::date - coalesce(d.date_due, d.date_issued) as overdue_days${extraColumns}
      from ${table} d
      left join later_paid lp on lp.id = d.id
      left join later_allocated la on la.id = d.id
     -- only what is owed: a proforma (or an advance bill) asks for money before a supply, owing nothing
     where d.org_id = ? and d.date_issued <= ?::date and d.${kindColumn} in ('${credit}', '${target}')
  ), lines as (
    -- a party renamed over time is shown by the name of its latest document
    select party, max(party_id) as party_id, (array_agg(party_name order by issued desc, id desc))[1] as party_name, currency,
           coalesce(sum(amount) filter (where overdue_days <= 0), 0) as current,
           coalesce(sum(amount) filter (where overdue_days between 1 and 30), 0) as days_1_30,
           coalesce(sum(amount) filter (where overdue_days between 31 and 60), 0) as days_31_60,
           coalesce(sum(amount) filter (where overdue_days between 61 and 90), 0) as days_61_90,
           coalesce(sum(amount) filter (where overdue_days > 90), 0) as days_over_90,
           sum(amount) as total, count(*)::int as documents
      from open where amount <> 0 group by party, currency
  )`;
}

type Figures = Record<AgingBucket | 'total', string>;
const wire = (f: Figures): AgedFigures => ({
  current: toWire(f.current),
  days_1_30: toWire(f.days_1_30),
  days_31_60: toWire(f.days_31_60),
  days_61_90: toWire(f.days_61_90),
  days_over_90: toWire(f.days_over_90),
  total: toWire(f.total),
});
const FIGURES = [...AGING_BUCKETS, 'total'].map((f) => `${f}::text as ${f}`).join(', ');
const SUMMED = [...AGING_BUCKETS, 'total'].map((f) => `sum(${f})::text as ${f}`).join(', ');

/**
 * The aged balances at the end of `as_of`: a page of party lines (largest total first) and each
 * currency's totals over all of them.
 */
export async function agedBalances(ctx: TenantContext, rule: AgingRule, q: { asOf: string; from: number; take: number; currency?: string }): Promise<AgedBalances> {
  const params = [ctx.orgId, q.asOf, ctx.orgId, q.asOf, ctx.orgId, q.asOf, q.asOf, ctx.orgId, q.asOf];
  const cte = openDocuments(rule);
  const currency = q.currency ? ' where currency = ?' : '';
  const currencyParams = q.currency ? [q.currency] : [];
  const lines = await sqlRows<Figures & { party_id: number | null; party_name: string | null; currency: string; documents: number; line_count: number }>(
    ctx.em,
    `${cte}
     select party_id, party_name, currency, documents, ${FIGURES}, count(*) over ()::int as line_count
       from lines${currency} order by lines.total desc, lines.party_name, lines.party, lines.currency limit ? offset ?`,
    [...params, ...currencyParams, q.take, q.from],
  );
  const totals = await sqlRows<Figures & { currency: string }>(
    ctx.em,
    `${cte}
     select currency, ${SUMMED} from lines${currency} group by currency order by currency`,
    [...params, ...currencyParams],
  );
  return {
    as_of: q.asOf,
    totals: totals.map((t) => ({ currency: t.currency, ...wire(t) })),
    // an empty page (past the last line, or take=0) still says how many lines there are
    total: lines.length ? lines[0].line_count : await lineCount(ctx, cte, params, currency, currencyParams),
    from: q.from,
    take: q.take,
    entities: lines.map((l) => ({ contact: { id: l.party_id === null ? null : Number(l.party_id), name: l.party_name }, currency: l.currency, documents: l.documents, ...wire(l) })),
    aggregations: [],
  };
}

async function lineCount(ctx: TenantContext, cte: string, params: unknown[], currency: string, currencyParams: unknown[]): Promise<number> {
  const [row] = await sqlRows<{ n: number }>(ctx.em, `${cte} select count(*)::int as n from lines${currency}`, [...params, ...currencyParams]);
  return row?.n ?? 0;
}

/** An open foreign-currency document at the end of a day, as a revaluation reads it (signed: a credit negative). */
export interface OpenForeignDocument<X> {
  id: number;
  kind: string;
  no: string;
  currency: string;
  /** What was open at the end of the day, in the document's currency. */
  open_amount: string;
  total_amount: string;
  /** The service's own columns (`extra`). */
  extra: X;
}

/**
 * The documents in another currency than `legalCurrency` open at the end of `asOf` (payments and
 * allocations dated later added back, as the aged balances count them), with `extra` columns of
 * the service's over `d` (e.g. the legal total) returned as `extra`.
 */
export async function openForeignDocuments<X extends Record<string, unknown>>(
  ctx: Pick<TenantContext, 'em' | 'orgId'>,
  rule: AgingRule,
  q: { asOf: string; legalCurrency: string; extra: Record<keyof X & string, string> },
): Promise<Array<OpenForeignDocument<X>>> {
  const names = Object.keys(q.extra);
  const extraColumns = [', d.no', `, d.${rule.documents.kindColumn}::text as kind`, ', d.total_amount::text as total_amount', ...names.map((n) => `, ${q.extra[n as keyof X & string]} as x_${n}`)].join('');
  const rows = await sqlRows<Record<string, unknown>>(
    ctx.em,
    `${openDocuments(rule, extraColumns)}
     select id, kind, no, currency, amount::text as open_amount, total_amount, ${names.map((n) => `x_${n}`).concat('1 as one').join(', ')}
       from open where amount <> 0 and currency <> ? order by id`,
    [ctx.orgId, q.asOf, ctx.orgId, q.asOf, ctx.orgId, q.asOf, q.asOf, ctx.orgId, q.asOf, q.legalCurrency],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    kind: String(r.kind),
    no: String(r.no),
    currency: String(r.currency),
    open_amount: String(r.open_amount),
    total_amount: String(r.total_amount),
    extra: Object.fromEntries(names.map((n) => [n, r[`x_${n}`]])) as X,
  }));
}

/**
 * The legal value the ledger still holds for an open document: its legal total less what its
 * payments cleared, which is in proportion to what they paid (`round(total_leg × paid / total)`,
 * finance's settlement rule), signed like `open`.
 */
export function openAmountLeg(p: { total: DecimalInput; totalLeg: DecimalInput; open: DecimalInput }): string {
  const total = dec(p.total).abs();
  const open = dec(p.open);
  const totalLeg = dec(p.totalLeg).abs();
  if (total.isZero()) return toDb(0);
  const left = totalLeg.minus(legalCleared(total, totalLeg, total.minus(open.abs())));
  return toDb(open.isNegative() ? left.negated() : left);
}
