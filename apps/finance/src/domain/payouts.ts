import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import type { PayoutRequest } from '@ledgerline/contracts/finance';
import { SUBJECTS } from '@ledgerline/contracts';
import { type ListedPage, BusinessRuleError, ConflictError, NotFoundError, assertWithinAmountLimit, dec, sqlRows, toDb, toWire, type TenantContext, listEntityPage, readEntity, sortedPage, where, type SqlCondition, type TenantScope } from '@ledgerline/service-kit';
import { PayoutSchema, type Payout, type StoredPayoutLine } from '../db/entities.js';
import { completedPaidRecord, emitPaymentMatched, resolvePaidRecord, type MatchResult } from './matching.js';
import { PAID_BY_MONEY_IN, needsTableRate, paymentLegal, settlementLeg, settlementNeedsHistory, type FxRateSource } from './legal-currency.js';
import { lockPaidDocuments, NOTHING_SETTLED, settledSoFar, type SettledSoFar } from './document-settlements.js';
import { isoDay, postingDate, postingSettingsOf, rateFrom, refuseClosedPeriod, tableRates } from '@ledgerline/service-kit';

/** Σ line amounts; a given total_amount must equal it exactly (422 otherwise). */
export function payoutTotal(lines: Array<{ amount: number }>, given: number | null | undefined): string {
  const sum = lines.reduce((acc, l) => acc.plus(dec(String(l.amount))), dec(0));
  if (given != null && !dec(String(given)).eq(sum)) {
    const message = `total_amount ${dec(String(given)).toFixed(2)} differs from the sum of the lines ${sum.toFixed(2)}`;
    throw new BusinessRuleError(message, 'payout_total_mismatch', [{ path: 'total_amount', message, code: 'payout_total_mismatch' }]);
  }
  return toDb(sum);
}

async function nextLineIds(em: EntityManager, n: number): Promise<number[]> {
  if (n === 0) return [];
  const rows = await sqlRows<{ id: number | string }>(em, "select nextval('payout_line_ids') as id from generate_series(1, ?::int)", [n]);
  return rows.map((r) => Number(r.id));
}

interface BuiltLines {
  lines: StoredPayoutLine[];
  total: string;
  legalCurrency: string;
  /** The payout's own rate: 1 in the legal currency, the given fx_rate, else null (lines at their documents' rates). */
  fxRate: string | null;
  currencyCoef: string | null;
  totalLeg: string;
}

/**
 * The settlement figure of each matched line. The paid documents are locked first; each line is
 * priced after what other payments (and this payout's earlier lines) applied to its document. A
 * replaced payout's own current lines do not count: they are taken back by the replacement.
 */
async function settleLines(
  ctx: TenantContext,
  results: MatchResult[],
  currency: string,
  legalCurrency: string,
  replacing: number | null,
): Promise<Array<string | null>> {
  const historic = (r: MatchResult) => r.match && r.document && settlementNeedsHistory(r.document, legalCurrency);
  await lockPaidDocuments(ctx, results.flatMap((r) => (historic(r) ? [r.match!] : [])));
  const so: Map<string, SettledSoFar> = new Map();
  const out: Array<string | null> = [];
  for (const r of results) {
    if (!r.match || !r.document) {
      out.push(null);
      continue;
    }
    const key = `${r.match.type}:${r.match.id}`;
    const before = so.get(key) ?? (historic(r) ? await settledSoFar(ctx, r.match, replacing) : NOTHING_SETTLED);
    const settlement = settlementLeg({ type: r.match.type, applied: r.match.amount, currency, legalCurrency, document: r.document, before });
    const sign = PAID_BY_MONEY_IN[r.match.type] ? 1 : -1;
    so.set(key, {
      applied: before.applied.plus(r.match.amount),
      clearedLeg: before.clearedLeg.plus(settlement === null ? 0 : dec(settlement).times(sign)),
    });
    out.push(settlement);
  }
  return out;
}

/**
 * Validates the lines, asks the owning services about every paid record, and builds the stored
 * lines with their legal-currency figures: each line at the payout's fx_rate, else (foreign
 * currency without one) at the rate of the document it pays; a line with neither → 422
 * `fx_rate_required`. The bank receives Σ of the lines' legal values.
 */
async function buildLines(ctx: TenantContext, req: PayoutRequest, replacing: number | null, legalCurrency: string): Promise<BuiltLines> {
  const { em } = ctx;
  const given = req.lines ?? [];
  const total = payoutTotal(given, req.total_amount);
  const results = await Promise.all(
    given.map((l, i) =>
      resolvePaidRecord(ctx, l.paid_record, { amount: l.amount, payment_amount: l.payment_amount, currency: l.currency ?? req.currency }, `lines[${i}].paid_record`),
    ),
  );
  // without a rate of its own, a foreign-currency payout takes the table's rate in force on its day
  const date = payoutPostedOn(ctx, req).date;
  const tableRate = needsTableRate(req, legalCurrency) ? rateFrom(await tableRates(ctx, [{ currency: req.currency, date }]), req.currency, date) : null;
  const legals = given.map((l, i) =>
    paymentLegal({
      amount: String(l.amount),
      currency: req.currency,
      legalCurrency,
      date,
      fxRate: req.fx_rate,
      currencyCoef: req.currency_coef,
      tableRate,
      paymentAmount: l.payment_amount,
      document: results[i].match ? results[i].document : null,
      path: 'fx_rate',
    }),
  );
  const totalLeg = legals.reduce((acc, l) => acc.plus(dec(l.amountLeg)), dec(0));
  assertWithinAmountLimit([['total_amount', total], ['total_amount_leg', totalLeg], ...legals.map((l, i): [string, string] => [`lines[${i}].amount_leg`, l.amountLeg])]);
  const settlements = await settleLines(ctx, results, req.currency, legalCurrency, replacing);
  const payoutRate: Pick<BuiltLines, 'fxRate' | 'currencyCoef'> =
    req.currency === legalCurrency
      ? { fxRate: '1', currencyCoef: '1' }
      : req.fx_rate != null
        ? { fxRate: dec(req.fx_rate).toString(), currencyCoef: dec(req.currency_coef ?? 1).toString() }
        : tableRate
          ? { fxRate: dec(tableRate.rate).toString(), currencyCoef: String(tableRate.amount) }
          : { fxRate: null, currencyCoef: null };
  const ids = await nextLineIds(em, given.length);
  const lines = given.map(
    (l, i): StoredPayoutLine => ({
      id: ids[i],
      description: l.description ?? null,
      amount: toDb(String(l.amount)),
      amount_original: l.amount_original != null ? toDb(String(l.amount_original)) : null,
      payment_amount: l.payment_amount != null ? toDb(String(l.payment_amount)) : null,
      date_transaction: l.date_transaction ?? null,
      date_accounting: l.date_accounting ?? null,
      currency: l.currency ?? null,
      order: l.order ?? i + 1,
      paid_record: completedPaidRecord(l.paid_record, results[i].match),
      gl_account: (l.gl_account as Record<string, unknown>) ?? null,
      match_status: results[i].status,
      match: results[i].match,
      amount_leg: legals[i].amountLeg,
      settlement_amount_leg: settlements[i],
      fx_rate: legals[i].fxRate,
      currency_coef: legals[i].currencyCoef,
      fx_rate_source: legals[i].source,
      fx_rate_date: legals[i].rateDate,
    }),
  );
  return { lines, total, legalCurrency, totalLeg: toDb(totalLeg), ...payoutRate };
}

async function announce(ctx: TenantContext, p: Payout) {
  // a version is never written into the closed period, so it is locked only if it says so
  const view = payoutView(p, null);
  // The ledger reverses the superseded version's entry and posts this one.
  const data = { ...view, replaces_version: p.version > 1 ? p.version - 1 : null };
  await ctx.emit({ subject: SUBJECTS.financePayoutPosted, orgId: p.orgId, resource: String(p.id), data });
  for (const line of p.lines) {
    if (!line.match) continue;
    await emitPaymentMatched(ctx, {
      paymentId: line.id,
      source: 'payout_line',
      match: line.match,
      date: line.date_transaction ?? isoDay(p.dateIssued),
      payoutId: p.id,
      payoutVersion: p.version,
    });
  }
  return view;
}

/** `copy_from_id` must name a payout of this organisation (the tenant filter hides others'). */
async function assertCopySource(em: EntityManager, req: PayoutRequest, self: number | null) {
  const from = req.copy_from_id;
  if (from === undefined || from === null) return;
  const found = from !== self && (await em.count(PayoutSchema, { id: from })) > 0;
  if (!found) {
    throw new BusinessRuleError(`Payout ${from} to copy from does not exist`, 'copy_source_not_found', [
      { path: 'copy_from_id', message: from === self ? 'a payout cannot be copied from itself' : 'no such payout', code: 'copy_source_not_found' },
    ]);
  }
}

/** The day the ledger posts a payout on (the day it is recorded when it names none). */
const payoutPostedOn = (ctx: TenantContext, p: Parameters<typeof postingDate.payout>[0]) => postingDate.payout(p, ctx.now().toISOString().slice(0, 10));

export async function createPayout(ctx: TenantContext, req: PayoutRequest) {
  const { em, orgId } = ctx;
  const books = await postingSettingsOf(ctx);
  refuseClosedPeriod(books.lockDate, 'the payout', [payoutPostedOn(ctx, req)]);
  await assertCopySource(em, req, null);
  const { lines, total, legalCurrency, fxRate, currencyCoef, totalLeg } = await buildLines(ctx, req, null, books.legalCurrency);
  const p = em.create(PayoutSchema, {
    orgId,
    uid: randomUUID(),
    version: 1,
    isLocked: req.is_locked ?? false,
    currency: req.currency,
    dateIssued: req.date_issued ?? null,
    description: req.description ?? null,
    totalAmount: total,
    pspObjectId: req.psp_object_id ?? null,
    no: req.no ?? null,
    copyFromId: req.copy_from_id ?? null,
    transactionType: (req.transaction_type as Record<string, unknown>) ?? null,
    lines,
    legalCurrency,
    fxRate,
    currencyCoef,
    totalAmountLeg: totalLeg,
    createdAt: new Date(),
    editedAt: new Date(),
  });
  await em.flush();
  return announce(ctx, p);
}

const payoutNotFound = (id: number) => new NotFoundError(`Payout ${id} does not exist`, 'payout_not_found');

/** The payout, locked for its replacement (`lock`), as the ORM's entity to change. */
export async function findPayout(em: EntityManager, id: number, lock = false): Promise<Payout> {
  const p = await em.findOne(PayoutSchema, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!p) throw payoutNotFound(id);
  return p;
}

/** The payout as read (`GET`, and the 404 a replacement answers first): one prepared statement, nothing hydrated. */
export async function readPayout(scope: TenantScope, id: number): Promise<Payout> {
  const { em, orgId } = scope;
  const p = await readEntity(em, PayoutSchema, orgId, id);
  if (!p) throw payoutNotFound(id);
  return p;
}

/**
 * Replaces a payout with a new version. The previous version's matched payments are taken
 * back with compensating (negative) `finance.payment.matched` events, the new version's are applied,
 * and `finance.payout.posted` carries the new version so the ledger reflects only the latest one.
 */
export async function replacePayout(ctx: TenantContext, id: number, req: PayoutRequest) {
  const { em } = ctx;
  const p = await findPayout(em, id, true);
  if (p.isLocked) throw new ConflictError(`Payout ${id} is locked and cannot be changed`, 'document_locked');
  // the ledger reverses the current version on the day it was posted and posts the new one on its own
  const books = await postingSettingsOf({ em: em, orgId: ctx.orgId });
  refuseClosedPeriod(books.lockDate, `replacing payout ${id} (which reverses version ${p.version})`, [{ field: 'id', date: standingPostedOn(p) }]);
  refuseClosedPeriod(books.lockDate, `the new version of payout ${id}`, [payoutPostedOn(ctx, req)]);
  await assertCopySource(em, req, p.id);
  const { lines, total, legalCurrency, fxRate, currencyCoef, totalLeg } = await buildLines(ctx, req, p.id, books.legalCurrency);
  for (const old of p.lines) {
    if (!old.match) continue;
    await emitPaymentMatched(
      ctx,
      { paymentId: old.id, source: 'payout_line', match: old.match, date: old.date_transaction ?? isoDay(p.dateIssued), payoutId: p.id, payoutVersion: p.version },
      -1,
    );
  }
  p.version += 1;
  p.isLocked = req.is_locked ?? false;
  p.currency = req.currency;
  p.dateIssued = req.date_issued ?? null;
  p.description = req.description ?? null;
  p.totalAmount = total;
  p.pspObjectId = req.psp_object_id ?? null;
  p.no = req.no ?? null;
  p.copyFromId = req.copy_from_id ?? null;
  p.transactionType = (req.transaction_type as Record<string, unknown>) ?? null;
  p.lines = lines;
  p.legalCurrency = legalCurrency;
  p.fxRate = fxRate;
  p.currencyCoef = currencyCoef;
  p.totalAmountLeg = totalLeg;
  p.editedAt = new Date();
  await em.flush();
  return announce(ctx, p);
}

/**
 * A payout is final when it was stored locked, or when the version standing was posted on or
 * before the lock date: replacing it would reverse it there (409 `period_locked`).
 */
function payoutLocked(p: Payout, lockDate: string | null): boolean {
  if (p.isLocked) return true;
  return lockDate !== null && standingPostedOn(p) <= lockDate;
}

/** The day the ledger posted the version standing: a replacement reverses it on that day. */
function standingPostedOn(p: Payout): string {
  return postingDate.payout({ date_issued: isoDay(p.dateIssued), lines: p.lines }, p.editedAt.toISOString().slice(0, 10)).date;
}

/** The payout as answered; `lockDate` the organisation's (null: the books are open). */
export function payoutView(p: Payout, lockDate: string | null) {
  return {
    id: p.id,
    uid: p.uid,
    transaction_type: p.transactionType ?? null,
    created_at: p.createdAt.toISOString(),
    edited_at: p.editedAt.toISOString(),
    is_locked: payoutLocked(p, lockDate),
    currency: p.currency.trim(),
    date_issued: isoDay(p.dateIssued),
    description: p.description ?? null,
    total_amount: toWire(p.totalAmount),
    psp_object_id: p.pspObjectId ?? null,
    no: p.no ?? null,
    copy_from_id: p.copyFromId ?? null,
    version: p.version,
    legal_currency: p.legalCurrency?.trim() ?? null,
    fx_rate: toWire(p.fxRate),
    currency_coef: toWire(p.currencyCoef),
    total_amount_leg: toWire(p.totalAmountLeg),
    lines: p.lines.map((l) => ({
      id: l.id,
      description: l.description,
      amount: toWire(l.amount),
      amount_original: toWire(l.amount_original),
      payment_amount: toWire(l.payment_amount),
      date_transaction: l.date_transaction,
      date_accounting: l.date_accounting,
      currency: l.currency,
      order: l.order,
      paid_record: l.paid_record,
      gl_account: l.gl_account,
      match_status: l.match_status,
      matched_document: l.match
        ? { type: l.match.type, id: l.match.id, no: l.match.no, amount: toWire(l.match.amount), currency: l.match.currency }
        : null,
      amount_leg: toWire(l.amount_leg),
      settlement_amount_leg: toWire(l.settlement_amount_leg),
      fx_rate: toWire(l.fx_rate),
      currency_coef: toWire(l.currency_coef),
      fx_rate_source: (l.fx_rate_source as FxRateSource | null | undefined) ?? null,
      fx_rate_date: l.fx_rate_date ?? null,
    })),
  };
}

/** Sortable fields of the list and the columns they read. */
const SORTABLE: Record<string, string> = {
  id: 'id',
  no: 'no',
  date_issued: 'date_issued',
  total_amount: 'total_amount',
  psp_object_id: 'psp_object_id',
  created_at: 'created_at',
  edited_at: 'edited_at',
};

/** A page of the organisation's payouts as plain rows (decision 105). */
export async function listPayouts(
  em: EntityManager,
  orgId: number,
  q: { from: number; take: number; search?: string; sort?: string[]; psp_object_id?: string[]; updated_since?: string },
): Promise<ListedPage<Payout>> {
  const conditions: SqlCondition[] = [];
  // a replacement stamps edited_at, so a sync reads the payout's new version
  if (q.updated_since) conditions.push(where.gte('edited_at', new Date(q.updated_since)));
  if (q.psp_object_id?.length) conditions.push(where.oneOf('psp_object_id', q.psp_object_id));
  if (q.search) conditions.push(where.containsAny(['no', 'description', 'psp_object_id'], q.search));
  return listEntityPage(em, PayoutSchema, { orgId, conditions, ...sortedPage(q, SORTABLE) });
}
