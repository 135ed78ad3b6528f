import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountingTransaction } from '@ledgerline/contracts';
import { asEntities, dec, entityColumns, isoDay, type DecimalInput, type JsonItem, listPage, propertiesOf, sqlRows, tableShape, toWire, where, type SortKey, type SqlCondition, type TenantScope } from '@ledgerline/service-kit';
import {
  AccountingTransactionSchema,
  GlAccountSchema,
  LedgerRowSchema,
  LedgerTaxRowSchema,
  type AccountingTransactionRecord,
  type GlAccount,
  type LedgerRowRecord,
  type LedgerTaxRowRecord,
} from '../db/entities.js';
import { unknownAccountName, type ChartLocale } from './chart.js';
import { TAX_ROLES } from './posting-map.js';
import { accountOfSlot, accountSlots, marksOf, slot, splicedView, templateText } from './entry-view-text.js';

/** Reading the ledger: the accounting transactions GET /v1/accounting/transactions answers. */

export const TRANSACTION_SORT_FIELDS = ['date_posting', 'no', 'id', 'created_at', 'type'] as const;
const SORT_COLUMNS: Record<(typeof TRANSACTION_SORT_FIELDS)[number], string> = {
  date_posting: 'date_posting',
  no: 'no',
  id: 'id',
  created_at: 'created_at',
  type: 'type',
};

export interface TransactionQuery {
  datePosting?: { from?: string; to?: string };
  /** The posted document's kind, and the one document of that kind. */
  source?: { type: string; id?: number };
  /** Only entries with a row on an account of this range (account numbers compared as text). */
  accounts?: { from?: string; to?: string };
  search?: string;
  sort: SortKey[];
  from: number;
  take: number;
  cursor?: string;
  exactTotal?: boolean;
}

export { isoDay };

const wire = (v: string | null | undefined) => (v === null || v === undefined ? null : toWire(v));

export function glAccountView(number: string, accounts: Map<string, GlAccount>, locale: ChartLocale) {
  const a = accounts.get(number);
  return {
    id: a?.id ?? null,
    number,
    name: a ? (locale === 'cs-CZ' ? a.nameCs : a.nameEn) : unknownAccountName(number, locale),
    description: a?.description ?? null,
  };
}

function taxRowView(t: LedgerTaxRowRecord, gl: (number: string) => unknown) {
  return {
    id: t.id,
    is_locked: true,
    currency: t.currency ?? null,
    tax_rate: wire(t.taxRate),
    tax_rate_rc: wire(t.taxRateRc),
    is_reverse_charge: t.isReverseCharge,
    tax_index: t.taxIndex ?? null,
    tax_code: t.taxCode ?? null,
    tax_name: t.taxName ?? null,
    tax_base_in: wire(t.taxBaseIn),
    tax_base_in_leg: wire(t.taxBaseInLeg),
    tax_base_out: wire(t.taxBaseOut),
    tax_base_out_leg: wire(t.taxBaseOutLeg),
    tax_amount_in: wire(t.taxAmountIn),
    tax_amount_in_leg: wire(t.taxAmountInLeg),
    tax_amount_claim: wire(t.taxAmountClaim),
    tax_amount_claim_leg: wire(t.taxAmountClaimLeg),
    tax_amount_out: wire(t.taxAmountOut),
    tax_amount_out_leg: wire(t.taxAmountOutLeg),
    tax_return_base_in: t.taxReturnBaseIn ?? null,
    tax_return_base_out: t.taxReturnBaseOut ?? null,
    tax_return_amount_claim: t.taxReturnAmountClaim ?? null,
    tax_return_amount_out: t.taxReturnAmountOut ?? null,
    tax_control_statement: t.taxControlStatement ?? null,
    tax_eu_sales_report: t.taxEuSalesReport ?? null,
    tax_deduction_ratio: wire(t.taxDeductionRatio),
    net_deduction_ratio: wire(t.netDeductionRatio),
    debit: toWire(t.debit),
    credit: toWire(t.credit),
    gl_account: gl(t.glAccountNumber),
    description: t.description ?? null,
  };
}

export function transactionView(
  t: AccountingTransactionRecord,
  rows: LedgerRowRecord[],
  taxRows: LedgerTaxRowRecord[],
  accounts: Map<string, GlAccount>,
  locale: ChartLocale,
): AccountingTransaction {
  const editedAt = t.editedAt ? new Date(t.editedAt).toISOString() : null;
  return entryView(t, rows, taxRows, (n) => glAccountView(n, accounts, locale), { status: t.accountingStatus, editedAt }) as AccountingTransaction;
}

/**
 * The stored view of an entry just posted (decision 260): its view with marks where its status,
 * `edited_at` and accounts go, as `splicedView` fills them for each answer.
 */
export function entryViewText(t: AccountingTransactionRecord, rows: LedgerRowRecord[], taxRows: LedgerTaxRowRecord[]): string {
  return templateText(entryView(t, rows, taxRows, slot.account, { status: slot.status(), editedAt: slot.editedAt() }));
}

/** An entry's view, each account as `gl` shows it, its status and `edited_at` as given. */
function entryView(
  t: AccountingTransactionRecord,
  rows: LedgerRowRecord[],
  taxRows: LedgerTaxRowRecord[],
  gl: (number: string) => unknown,
  live: { status: string; editedAt: string | null },
) {
  const debit = rows.reduce((s, r) => s.plus(r.debit), dec(0));
  const credit = rows.reduce((s, r) => s.plus(r.credit), dec(0));
  // act_rows: the entry per account and role, one line each (what an accountant reads). Most
  // pairs have one row, whose stored figures need no arithmetic; a second row makes them sums.
  const act = new Map<string, { type: string; number: string; debit: DecimalInput; credit: DecimalInput; id: number }>();
  for (const r of rows) {
    const key = `${r.role}|${r.glAccountNumber}`;
    const cur = act.get(key);
    if (!cur) act.set(key, { type: r.role, number: r.glAccountNumber, debit: r.debit, credit: r.credit, id: r.id });
    else {
      cur.debit = dec(cur.debit).plus(r.debit);
      cur.credit = dec(cur.credit).plus(r.credit);
    }
  }
  return {
    id: t.id,
    uid: t.uid,
    created_at: new Date(t.createdAt).toISOString(),
    edited_at: live.editedAt,
    books: [{ id: t.bookId }],
    type: t.type,
    transaction_type: t.transactionType ?? null,
    cash_card: null,
    no: t.no ?? null,
    vendor_doc_no: t.vendorDocNo ?? null,
    credited_doc_no: t.creditedDocNo ?? null,
    payment_reference: t.paymentReference ?? null,
    date_issued: isoDay(t.dateIssued),
    date_due: isoDay(t.dateDue),
    date_posting: isoDay(t.datePosting),
    date_taxable: isoDay(t.dateTaxable),
    date_tax_applied: isoDay(t.dateTaxApplied),
    date_from: null,
    date_to: null,
    currency: t.currency,
    precision: t.precision,
    contact: t.contact ?? null,
    bank_account: t.bankAccount ?? null,
    tax_nexus: t.taxNexus ?? null,
    tax_deduction_ratio: wire(t.taxDeductionRatio),
    net_deduction_ratio: wire(t.netDeductionRatio),
    opening_balance: null,
    closing_balance: null,
    amount_paid: wire(t.amountPaid),
    amount_due: wire(t.amountDue),
    accounting_status: live.status,
    rows: rows.map((r) => ({
      id: r.id,
      order: r.ord,
      is_locked: true,
      payment_amount: wire(r.paymentAmount),
      date_posting: isoDay(r.datePosting),
      currency: r.currency ?? null,
      payment_reference: r.paymentReference ?? null,
      tax_deduction_ratio: wire(r.taxDeductionRatio),
      net_deduction_ratio: wire(r.netDeductionRatio),
      contact: r.contact ?? null,
      paid_record: r.paidRecord ?? null,
      taxes: taxRows.filter((x) => x.rowId === r.id).map((x) => taxRowView(x, gl)),
      fx_rates: r.fxRates ?? [],
      debit: toWire(r.debit),
      credit: toWire(r.credit),
      gl_account: gl(r.glAccountNumber),
      description: r.description ?? null,
    })),
    act_rows: [...act.values()].map((a) => ({ id: a.id, type: a.type, debit: toWire(a.debit), credit: toWire(a.credit), gl_account: gl(a.number) })),
    taxes: rows.filter((r) => TAX_ROLES.has(r.role)).map((r) => ({ id: r.id, debit: toWire(r.debit), credit: toWire(r.credit), gl_account: gl(r.glAccountNumber) })),
    fx_rates: t.fxRates ?? [],
    is_locked: true,
    debit: debit.toNumber(),
    credit: credit.toNumber(),
    gl_account: null,
    description: t.description ?? null,
    // extensions: which document this entry posts, and the legal currency of its figures
    source: { type: t.sourceType, id: t.sourceId, version: t.sourceVersion },
    legal_currency: t.legalCurrency,
    reverses_id: t.reversesId ?? null,
  };
}
export type TransactionView = ReturnType<typeof transactionView>;

export async function accountsOf(em: EntityManager): Promise<Map<string, GlAccount>> {
  const all = await em.find(GlAccountSchema, {});
  return new Map(all.map((a) => [a.number, a]));
}

/** The organisation's accounts of these numbers, by number: what a page names, not the whole chart. */
export async function accountsNamed(scope: TenantScope, numbers: Iterable<string>): Promise<Map<string, GlAccount>> {
  const { em, orgId } = scope;
  const wanted = [...numbers];
  // a page without lines names none: no statement for it
  if (wanted.length === 0) return new Map();
  const rows = await sqlRows<GlAccount>(em, `select ${entityColumns(em, GlAccountSchema)} from gl_accounts where org_id = ? and number = any(?::text[])`, [orgId, wanted], {
    prepared: true,
  });
  return new Map(rows.map((a) => [a.number, a]));
}

/** A page's entry as the page statement reads it: its id, what a stored view leaves out, the view if stored. */
interface ListedEntry {
  id: number;
  accountingStatus: string;
  editedAt: string | Date | null;
  view: string | null;
}

/**
 * Accounting transactions of the caller's organisation as JSON texts, in the page's order. An
 * entry posted with its view stored (decision 260) is that text with its marks filled; one
 * without (posted before views were stored, or by a rebuild) is built from its header, rows and
 * tax rows: plain rows read under their entities' property names (decimals as Postgres' exact
 * strings, days as text), nothing hydrated (decision 105). Every statement's text is the same
 * for every page, so each is planned once per connection.
 */
export async function listTransactions(scope: TenantScope, q: TransactionQuery, locale: ChartLocale) {
  const { em, orgId } = scope;
  const conditions = where.within('date_posting', q.datePosting);
  if (q.search) conditions.push(where.containsAny(['no', 'description'], q.search));
  if (q.source) conditions.push(where.eq('source_type', q.source.type));
  if (q.source?.id !== undefined) conditions.push(where.eq('source_id', q.source.id));
  if (q.accounts) conditions.push(onAccounts(orgId, q.accounts, q.datePosting));
  const table = tableShape(em, AccountingTransactionSchema).table;
  const { rows: found, ...counted } = await listPage<ListedEntry>(em, {
    table,
    columns: `id, accounting_status as "accountingStatus", edited_at as "editedAt",
      (select v.view from ledger_entry_views v where v.transaction_id = ${table}.id and v.org_id = ${table}.org_id) as view`,
    orgId,
    conditions,
    sort: q.sort,
    sortColumns: SORT_COLUMNS,
    notNull: ['id', 'date_posting', 'created_at', 'type'],
    tieBreak: 'asc',
    from: q.from,
    take: q.take,
    cursor: q.cursor,
    exactTotal: q.exactTotal,
  });
  if (found.length === 0) return { entities: [] as JsonItem[], ...counted };
  // the accounts the page names, not the whole chart; each view's marks found once
  const marked = found.map((e) => (e.view === null ? null : marksOf(e.view)));
  const slots = new Set<string>();
  for (const m of marked) if (m !== null) accountSlots(m, slots);
  const numberOf = new Map([...slots].map((s) => [s, accountOfSlot(s)]));
  const named = new Set(numberOf.values());
  const built = await entriesBuilt(scope, found.filter((e) => e.view === null).map((e) => Number(e.id)), named);
  const accounts = await accountsNamed(scope, named);
  // each value a mark is filled with, encoded once a page
  const accountFills = new Map<string, Uint8Array>();
  const account = (s: string) => {
    let fill = accountFills.get(s);
    if (fill === undefined) accountFills.set(s, (fill = Buffer.from(JSON.stringify(glAccountView(numberOf.get(s) ?? accountOfSlot(s), accounts, locale)))));
    return fill;
  };
  const statusFills = new Map<string, Uint8Array>();
  const statusFill = (status: string) => {
    let fill = statusFills.get(status);
    if (fill === undefined) statusFills.set(status, (fill = Buffer.from(JSON.stringify(status))));
    return fill;
  };
  const entities = found.map((e, i): JsonItem => {
    const m = marked[i];
    if (m !== null) {
      const editedAt = e.editedAt ? Buffer.from(JSON.stringify(new Date(e.editedAt).toISOString())) : NULL_JSON;
      return splicedView(m, { status: statusFill(e.accountingStatus), editedAt, account });
    }
    const b = built.get(Number(e.id))!;
    return JSON.stringify(transactionView(b.header, b.rows, b.taxRows, accounts, locale));
  });
  return { ...counted, entities };
}

const NULL_JSON = Buffer.from('null');

/** Entries without a stored view, read whole by id; the accounts their rows name are added to `named`. */
export async function entriesBuilt(scope: TenantScope, ids: number[], named: Set<string>) {
  const { em, orgId } = scope;
  const out = new Map<number, { header: AccountingTransactionRecord; rows: LedgerRowRecord[]; taxRows: LedgerTaxRowRecord[] }>();
  if (ids.length === 0) return out;
  const idList = `{${ids.join(',')}}`;
  // sequential: the entity manager may sit on one transaction connection
  const headers = asEntities(
    em,
    AccountingTransactionSchema,
    await sqlRows<Record<string, unknown>>(em, `select ${entityColumns(em, AccountingTransactionSchema)} from ${tableShape(em, AccountingTransactionSchema).table} where org_id = ? and id = any(?::bigint[])`, [orgId, idList], { prepared: true }),
  );
  const rows = await sqlRows<LedgerRowRecord>(em, rowsOfPage(em, LedgerRowSchema), [orgId, idList], { prepared: true });
  const taxRows = await sqlRows<LedgerTaxRowRecord>(em, rowsOfPage(em, LedgerTaxRowSchema), [orgId, idList], { prepared: true });
  for (const r of rows) named.add(r.glAccountNumber);
  for (const r of taxRows) named.add(r.glAccountNumber);
  // grouped once: filtering every row for every transaction grew with the square of the page
  const rowsOf = groupBy(rows, (r) => r.transactionId);
  const taxRowsOf = groupBy(taxRows, (r) => r.transactionId);
  for (const h of headers) out.set(Number(h.id), { header: h, rows: rowsOf.get(h.id) ?? [], taxRows: taxRowsOf.get(h.id) ?? [] });
  return out;
}

/** The rows of a table that belong to a page's transactions (`{id,…}` bound second), in their order. */
function rowsOfPage(em: EntityManager, schema: typeof LedgerRowSchema | typeof LedgerTaxRowSchema): string {
  return `select ${entityColumns(em, schema)} from ${tableShape(em, schema).table} where org_id = ? and transaction_id = any(?::bigint[]) order by transaction_id, ord`;
}

/**
 * Entries with a row on an account of the range (decision 164): what moved on 343 in October is
 * read from the rows of the period (the trial balance's index: organisation, book, day, account),
 * not by reading every entry's rows.
 */
function onAccounts(orgId: number, accounts: { from?: string; to?: string }, days: { from?: string; to?: string } | undefined): SqlCondition {
  const sql = ['r.org_id = ?'];
  const params: unknown[] = [orgId];
  if (accounts.from !== undefined) (sql.push('r.gl_account_number collate "C" >= ? collate "C"'), params.push(accounts.from));
  if (accounts.to !== undefined) (sql.push('r.gl_account_number collate "C" <= ? collate "C"'), params.push(accounts.to));
  if (days?.from !== undefined) (sql.push('r.date_posting >= ?::date'), params.push(days.from));
  if (days?.to !== undefined) (sql.push('r.date_posting <= ?::date'), params.push(days.to));
  return { sql: `id in (select r.transaction_id from ledger_rows r where ${sql.join(' and ')})`, params };
}

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/**
 * The GET /v1/accounting/transactions view of a transaction from its rows as just stored (database column names) and the
 * accounts they name, so announcing a posting reads nothing back.
 */
export function transactionViewOfInserted(
  inserted: { transaction: Record<string, unknown>; rows: Array<Record<string, unknown>>; taxRows: Array<Record<string, unknown>>; accounts: Array<Record<string, unknown>> },
  locale: ChartLocale,
) {
  const byOrd = (a: { ord: number }, b: { ord: number }) => a.ord - b.ord;
  const rows = inserted.rows.map((r) => propertiesOf<LedgerRowRecord>(r)).sort(byOrd);
  const taxRows = inserted.taxRows.map((r) => propertiesOf<LedgerTaxRowRecord>(r)).sort(byOrd);
  const accounts = new Map(inserted.accounts.map((a) => [String(a.number), propertiesOf<GlAccount>(a)]));
  return transactionView(propertiesOf<AccountingTransactionRecord>(inserted.transaction), rows, taxRows, accounts, locale);
}

/** The stored view (decision 260) of a transaction from its rows as just stored (database column names). */
export function entryViewTextOfInserted(inserted: { transaction: Record<string, unknown>; rows: Array<Record<string, unknown>>; taxRows: Array<Record<string, unknown>> }): string {
  const byOrd = (a: { ord: number }, b: { ord: number }) => a.ord - b.ord;
  const rows = inserted.rows.map((r) => propertiesOf<LedgerRowRecord>(r)).sort(byOrd);
  const taxRows = inserted.taxRows.map((r) => propertiesOf<LedgerTaxRowRecord>(r)).sort(byOrd);
  return entryViewText(propertiesOf<AccountingTransactionRecord>(inserted.transaction), rows, taxRows);
}
