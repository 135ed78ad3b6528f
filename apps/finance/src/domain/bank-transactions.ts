import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankTransactionMatchRequest, BankTransactionRequest } from '@ledgerline/contracts/finance';
import type { DocumentLookupAnswer } from '@ledgerline/contracts';
import { LockMode } from '@mikro-orm/core';
import { SUBJECTS } from '@ledgerline/contracts';
import { type ListedPage, BusinessRuleError, ConflictError, FALLBACK_LEGAL_CURRENCY, NotFoundError, assertWithinAmountLimit, insertStatement, isUniqueViolation, sqlRows, toDb, toWire, type TenantContext, listEntityPage, sortedPage, parseRange, where } from '@ledgerline/service-kit';
import { BankTransactionSchema, type BankTransaction, type MatchStatus, type PaymentMatch } from '../db/entities.js';
import { completedPaidRecord, emitPaymentMatched, resolvePaidRecord, type MatchResult } from './matching.js';
import { needsTableRate, paymentLegal, settlementLeg, settlementNeedsHistory, type FxRateSource } from './legal-currency.js';
import { lockPaidDocuments, NOTHING_SETTLED, settledSoFar } from './document-settlements.js';
import { isoDay, legalCurrencyOf, lockDateOf, postingDate, postingSettingsOf, rateFrom, refuseClosedPeriod, tableRates, type RateInForce } from '@ledgerline/service-kit';

function duplicate(): ConflictError {
  return new ConflictError(
    'This bank transaction is already recorded: the account_number has this statement_id and order, or a transaction with this bank_reference, amount and booking day (date_accounting, else date_transaction)',
    'duplicate_bank_transaction',
  );
}

type Cash = Pick<BankTransactionRequest, 'amount' | 'currency' | 'fx_rate' | 'currency_coef' | 'payment_amount'>;

/**
 * The legal-currency value of a payment, and of the document it settles: at rate 1 in the legal
 * currency, else at the given fx_rate, else at the exchange-rate table's rate in force on `date`
 * (the booking day; `rates` when the caller asked for many days at once), else at the paid
 * document's rate (422 `fx_rate_required` without any). A payment of a foreign-currency document
 * is priced after every earlier payment of it, which the lock makes final.
 */
export async function pricePayment(
  ctx: TenantContext,
  cash: Cash,
  resolved: MatchResult,
  p: { date: string; legalCurrency?: string; rates?: Map<string, RateInForce>; stated?: { source: FxRateSource; rateDate: string | null } | null },
) {
  const { match, document } = resolved;
  const legalCurrency = p.legalCurrency ?? (await legalCurrencyOf(ctx));
  let tableRate: RateInForce | null = null;
  if (needsTableRate(cash, legalCurrency)) {
    tableRate = rateFrom(p.rates ?? (await tableRates(ctx, [{ currency: cash.currency, date: p.date }])), cash.currency, p.date);
  }
  const legal = paymentLegal({
    amount: String(cash.amount),
    currency: cash.currency,
    legalCurrency,
    date: p.date,
    fxRate: cash.fx_rate,
    currencyCoef: cash.currency_coef,
    stated: p.stated,
    tableRate,
    paymentAmount: cash.payment_amount,
    document: match ? document : null,
    path: 'fx_rate',
  });
  assertWithinAmountLimit([['amount_leg', legal.amountLeg]]);
  let settlement: string | null = null;
  if (match && document) {
    let before = NOTHING_SETTLED;
    if (settlementNeedsHistory(document, legalCurrency)) {
      // the lock holds until the commit, so the request needs its transaction now
      await ctx.inOwnTransaction();
      await lockPaidDocuments(ctx, [match]);
      before = await settledSoFar(ctx, match);
    }
    settlement = settlementLeg({ type: match.type, applied: match.amount, currency: cash.currency, legalCurrency, document, before });
  }
  return { legalCurrency, legal, settlement };
}

/**
 * What a bank transaction needs before it is looked up and priced, in one round trip: its id
 * (from its sequence, so its events can be built before it is written), the organisation's legal
 * currency and lock date (one read of the replica; null without one), and whether it was
 * recorded before — the same statement line, or the same entry (bank reference, amount and
 * booking day, decision 180), on its account.
 */
const PREPARE = `select nextval(pg_get_serial_sequence('bank_transactions', 'id'))::bigint as id,
  o.legal_currency, o.profile->>'lock_date' as lock_date,
  exists (select 1 from bank_transactions where org_id = ?::bigint and account_number = ?::text
    and ((statement_id = ?::bigint and line_order = ?::int)
      or (bank_reference = ?::text and amount = ?::numeric and coalesce(date_accounting, date_transaction) = coalesce(?::date, ?::date)))) as seen
  from (select 1) one left join kit_organisations o on o.org_id = ?::bigint`;

/**
 * Records a bank transaction. A statement line already recorded (same account, statement and
 * order in the organisation) is refused with 409 and nothing is written. A paid record is looked up
 * at its owning service: found → matched (`finance.payment.matched`), not found → unmatched (posted
 * to suspense by accounting, never applied). The legal-currency value is stored with it: at rate 1
 * in the legal currency, else at the given fx_rate, else at the paid document's rate; without any,
 * 422 `fx_rate_required` and nothing is written.
 *
 * The transaction and its events are written last, by one statement (`ctx.writeLast`): a request
 * that holds no transaction commits them with it, so a payment in the legal currency costs two
 * statements (this one and `PREPARE`) and no BEGIN or COMMIT.
 *
 * A transaction that would post on or before the organisation's lock date is 409 `period_locked`
 * (decision 156); a caller that passes `opts.id` has checked its transactions' dates already.
 *
 * `opts.matchedBy` records what a statement match rested on; `opts.suspense` marks a statement
 * entry that was looked for and not found as `unmatched` (waiting in 395 for …/match), where a
 * transaction recorded without any paid record is `none`; `opts.id`, `opts.legalCurrency` and
 * `opts.document` are what the caller already has (an id it took with the kit's `nextIds`,
 * the organisation's legal currency, the owner's answer about the paid record); `opts.id` also
 * says it has looked for duplicates already (the unique indexes still guard); `opts.referenceOccurrence`
 * is the entry's place among its statement's entries of one key (`entry-duplicates.ts`).
 */
export async function recordBankTransaction(
  ctx: TenantContext,
  req: BankTransactionRequest,
  opts: { matchedBy?: string | null; suspense?: boolean; id?: number; legalCurrency?: string; document?: DocumentLookupAnswer; referenceOccurrence?: number; rates?: Map<string, RateInForce> } = {},
) {
  const { em, orgId } = ctx;
  let id = opts.id;
  let knownLegalCurrency = opts.legalCurrency;
  if (id === undefined) {
    const [pre] = await sqlRows<{ id: number; legal_currency: string | null; lock_date: string | null; seen: boolean }>(
      em,
      PREPARE,
      [orgId, req.account_number ?? null, req.statement_id ?? null, req.order ?? null, req.bank_reference ?? null, String(req.amount), req.date_accounting ?? null, req.date_transaction, orgId],
      { prepared: true },
    );
    if (pre.seen) throw duplicate();
    refuseClosedPeriod(lockDateOf({ lock_date: pre.lock_date }), 'the bank transaction', [postingDate.bankTransaction(req)]);
    id = pre.id;
    knownLegalCurrency ??= pre.legal_currency ?? FALLBACK_LEGAL_CURRENCY;
  }
  const resolved = await resolvePaidRecord(ctx, req.paid_record, req, 'paid_record', opts.document);
  const { match } = resolved;
  const status = resolved.status === 'none' && opts.suspense && !req.gl_account ? 'unmatched' : resolved.status;
  const { legalCurrency, legal, settlement } = await pricePayment(ctx, req, resolved, { date: postingDate.bankTransaction(req).date, legalCurrency: knownLegalCurrency, rates: opts.rates });

  const bt: BankTransaction = {
    id,
    orgId,
    accountNumber: req.account_number ?? null,
    statementId: req.statement_id ?? null,
    order: req.order ?? null,
    description: req.description ?? null,
    amount: toDb(String(req.amount)),
    amountOriginal: req.amount_original != null ? toDb(String(req.amount_original)) : null,
    paymentAmount: req.payment_amount != null ? toDb(String(req.payment_amount)) : null,
    dateTransaction: req.date_transaction,
    dateAccounting: req.date_accounting ?? null,
    currency: req.currency,
    paymentReference: req.payment_reference ?? null,
    partnerAccountNumber: req.partner_account_number ?? null,
    partnerName: req.partner_name ?? null,
    rawMessage: req.raw_message ?? null,
    contact: (req.contact as Record<string, unknown>) ?? null,
    paidRecord: completedPaidRecord(req.paid_record, match),
    glAccount: (req.gl_account as Record<string, unknown>) ?? null,
    matchStatus: status,
    match,
    legalCurrency,
    fxRate: legal.fxRate,
    currencyCoef: legal.currencyCoef,
    fxRateSource: legal.source,
    fxRateDate: legal.rateDate,
    amountLeg: legal.amountLeg,
    settlementAmountLeg: settlement,
    bankReference: req.bank_reference ?? null,
    referenceOccurrence: opts.referenceOccurrence ?? 1,
    matchedBy: match ? (opts.matchedBy ?? 'paid_record') : null,
    version: 1,
    createdAt: new Date(),
  } as BankTransaction;
  const view = bankTransactionView(bt);
  await ctx.emit({ subject: SUBJECTS.financeBankTransactionRecorded, orgId, resource: String(id), data: view });
  if (match) {
    await emitPaymentMatched(ctx, { paymentId: id, source: 'bank_transaction', match, date: req.date_transaction });
  }
  // inserted without the unit of work: a statement records thousands in one request, and every
  // flush would compare all of them again
  const insert = insertStatement(em, BankTransactionSchema, [bt], { returning: ['id'] });
  try {
    // the answer is the view: the write's audit record goes in its statement (decision 255)
    await ctx.writeLast(insert.sql, insert.params, { prepared: true, answer: view });
  } catch (e) {
    // A concurrent twin got in between the check and the insert.
    if (isUniqueViolation(e)) throw duplicate();
    throw e;
  }
  return view;
}

/** The stored transaction plus whether and what it matched. */
export function bankTransactionView(bt: BankTransaction) {
  return {
    id: bt.id,
    account_number: bt.accountNumber ?? null,
    statement_id: bt.statementId ?? null,
    order: bt.order ?? null,
    description: bt.description ?? null,
    amount: toWire(bt.amount),
    amount_original: toWire(bt.amountOriginal),
    payment_amount: toWire(bt.paymentAmount),
    date_transaction: isoDay(bt.dateTransaction),
    date_accounting: isoDay(bt.dateAccounting),
    currency: bt.currency.trim(),
    payment_reference: bt.paymentReference ?? null,
    partner_account_number: bt.partnerAccountNumber ?? null,
    partner_name: bt.partnerName ?? null,
    raw_message: bt.rawMessage ?? null,
    contact: bt.contact ?? null,
    paid_record: bt.paidRecord ?? null,
    gl_account: bt.glAccount ?? null,
    match_status: bt.matchStatus,
    matched_document: bt.match
      ? { type: bt.match.type, id: bt.match.id, no: bt.match.no, amount: toWire(bt.match.amount), currency: bt.match.currency }
      : null,
    legal_currency: bt.legalCurrency?.trim() ?? null,
    fx_rate: toWire(bt.fxRate),
    currency_coef: toWire(bt.currencyCoef),
    fx_rate_source: (bt.fxRateSource as FxRateSource | null | undefined) ?? null,
    fx_rate_date: isoDay(bt.fxRateDate ?? null),
    amount_leg: toWire(bt.amountLeg),
    settlement_amount_leg: toWire(bt.settlementAmountLeg),
    bank_reference: bt.bankReference ?? null,
    version: bt.version ?? 1,
  };
}

/** Sortable fields of the list and the columns they read. */
const SORTABLE: Record<string, string> = {
  id: 'id',
  date_transaction: 'date_transaction',
  amount: 'amount',
  account_number: 'account_number',
  statement_id: 'statement_id',
  order: 'line_order',
  partner_name: 'partner_name',
  match_status: 'match_status',
};

/** A page of the organisation's bank transactions as plain rows (decision 105). */
export async function listBankTransactions(
  em: EntityManager,
  orgId: number,
  q: { from: number; take: number; search?: string; sort?: string[]; date_transaction?: string; match_status?: MatchStatus; statement_id?: number; updated_since?: string },
): Promise<ListedPage<BankTransaction>> {
  const conditions = where.within('date_transaction', parseRange('date_transaction', q.date_transaction, 'date'));
  if (q.updated_since) conditions.push(where.gte('updated_at', new Date(q.updated_since)));
  if (q.match_status) conditions.push(where.eq('match_status', q.match_status));
  if (q.statement_id !== undefined) conditions.push(where.eq('statement_id', q.statement_id));
  if (q.search) conditions.push(where.containsAny(['description', 'partner_name', 'payment_reference', 'account_number'], q.search));
  return listEntityPage(em, BankTransactionSchema, { orgId, conditions, ...sortedPage(q, SORTABLE) });
}

/**
 * POST /finance/bank/transactions/{id}/match: an unmatched transaction (in 395 suspense) is
 * matched to the document it pays. It becomes version 2 of itself: the ledger reverses the
 * suspense posting and posts the payment against the document, and the document's owner applies
 * the payment (`finance.payment.matched`). A transaction already matched is 409; a document that
 * does not exist in the organisation, or is in another currency, is 422 and nothing changes.
 */
export async function matchBankTransaction(ctx: TenantContext, id: number, body: BankTransactionMatchRequest) {
  const bt = await lockedTransaction(ctx, id);
  if (bt.matchStatus === 'matched') throw new ConflictError(`Bank transaction ${id} already pays ${bt.match?.type} ${bt.match?.no ?? bt.match?.id}`, 'bank_transaction_already_matched');
  // one booked to an account of its own (a fee to 568) is not waiting in suspense
  if (bt.glAccount?.number) throw new ConflictError(`Bank transaction ${id} is booked to account ${String(bt.glAccount.number)}, not waiting in suspense`, 'bank_transaction_not_in_suspense');
  await refusePostedInClosedPeriod(ctx, bt, `matching bank transaction ${id}`);
  const cash = { amount: Number(bt.amount), currency: bt.currency.trim(), payment_amount: bt.paymentAmount != null ? Number(bt.paymentAmount) : null };
  const resolved = await resolvePaidRecord(ctx, { type: body.document.type, id: body.document.id }, cash, 'document');
  if (!resolved.match) {
    throw new BusinessRuleError(
      `${body.document.type} ${body.document.id} is not a document this transaction can pay (not found in the organisation, or in another currency than ${cash.currency})`,
      'document_not_payable',
      [{ path: 'document', message: 'not found, or in another currency', code: 'document_not_payable' }],
    );
  }
  // priced again at the rate it was recorded at (the ledger posted it so), keeping where that came from
  const { legal, settlement } = await pricePayment(
    ctx,
    { ...cash, fx_rate: bt.fxRate != null ? Number(bt.fxRate) : null, currency_coef: bt.currencyCoef != null ? Number(bt.currencyCoef) : null },
    resolved,
    {
      date: postingDate.bankTransaction({ date_accounting: isoDay(bt.dateAccounting), date_transaction: isoDay(bt.dateTransaction)! }).date,
      stated: bt.fxRateSource ? { source: bt.fxRateSource as FxRateSource, rateDate: isoDay(bt.fxRateDate ?? null) } : null,
    },
  );
  return storeNextVersion(
    ctx,
    bt,
    {
      paidRecord: completedPaidRecord({ type: body.document.type, id: body.document.id }, resolved.match),
      match: resolved.match,
      matchStatus: 'matched',
      matchedBy: 'manual',
      glAccount: null,
      fxRate: legal.fxRate,
      currencyCoef: legal.currencyCoef,
      fxRateSource: legal.source,
      fxRateDate: legal.rateDate,
      amountLeg: legal.amountLeg,
      settlementAmountLeg: settlement,
    },
    { match: resolved.match, sign: 1 },
  );
}

/** A transaction of the organisation, locked until commit (404 when it has none of that id). */
async function lockedTransaction(ctx: TenantContext, id: number): Promise<BankTransaction> {
  const bt = await ctx.em.findOne(BankTransactionSchema, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!bt) throw new NotFoundError(`Bank transaction ${id} not found`, 'bank_transaction_not_found');
  return bt;
}

/**
 * A later match, or taking one back, re-posts the transaction on its own day (the ledger reverses
 * the version it posted): one posted in a closed period is 409 `period_locked` (decision 156).
 */
async function refusePostedInClosedPeriod(ctx: TenantContext, bt: BankTransaction, what: string): Promise<void> {
  const { lockDate } = await postingSettingsOf(ctx);
  const posted = postingDate.bankTransaction({ date_accounting: isoDay(bt.dateAccounting), date_transaction: isoDay(bt.dateTransaction) });
  refuseClosedPeriod(lockDate, what, [posted]);
}

/**
 * Stores a change of a recorded transaction as its next version and announces it: the ledger
 * reverses the version it posted and posts this one, and the payment is applied to (`sign` 1) or
 * taken back from (−1) the document it names.
 */
async function storeNextVersion(ctx: TenantContext, bt: BankTransaction, changes: Partial<BankTransaction>, payment: { match: PaymentMatch; sign: 1 | -1 }) {
  Object.assign(bt, changes, { version: (bt.version ?? 1) + 1, updatedAt: ctx.now() });
  await ctx.em.flush();
  const view = bankTransactionView(bt);
  await ctx.emit({ subject: SUBJECTS.financeBankTransactionRecorded, orgId: ctx.orgId, resource: String(bt.id), data: view });
  await emitPaymentMatched(ctx, { paymentId: bt.id, source: 'bank_transaction', match: payment.match, date: isoDay(bt.dateTransaction) }, payment.sign);
  return view;
}

/**
 * Takes a matched transaction off the document it paid (decision 151): a statement matched by
 * amount, or a payment recorded against the wrong invoice, is corrected by unmatching it and
 * matching it again. The payment is taken back from the document (`finance.payment.matched` with
 * the amount negated), the transaction is stored unmatched as its next version — which the ledger
 * posts by reversing the previous version and booking the money to 395 — and `…/match` may then
 * pay the right document. One not matched is 409, and so is one booked to an account of its own.
 */
export async function unmatchBankTransaction(ctx: TenantContext, id: number) {
  const bt = await lockedTransaction(ctx, id);
  if (bt.matchStatus !== 'matched' || !bt.match) throw new ConflictError(`Bank transaction ${id} pays no document`, 'bank_transaction_not_matched');
  await refusePostedInClosedPeriod(ctx, bt, `taking back the match of bank transaction ${id}`);
  const match = bt.match;
  // payments of the document are priced one after another, this taking-back among them
  await lockPaidDocuments(ctx, [match]);
  return storeNextVersion(ctx, bt, { paidRecord: null, match: null, matchStatus: 'unmatched', matchedBy: null, settlementAmountLeg: null }, { match, sign: -1 });
}
