import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import type { BankTransactionRequest } from '@ledgerline/contracts/finance';
import { SUBJECTS } from '@ledgerline/contracts';
import { ConflictError, assertWithinAmountLimit, isUniqueViolation, parseRange, parseSort, toDb, toWire, type TenantContext } from '@ledgerline/service-kit';
import { BankTransactionSchema, type BankTransaction } from '../db/entities.js';
import { completedPaidRecord, emitPaymentMatched, resolvePaidRecord } from './matching.js';
import { paymentLegal, settlementLeg, settlementNeedsHistory, type FxRateSource } from './legal-currency.js';
import { lockPaidDocuments, NOTHING_SETTLED, settledSoFar } from './document-settlements.js';
import { isoDay, legalCurrencyOf } from '@ledgerline/service-kit';

function duplicate(): ConflictError {
  return new ConflictError(
    'This bank transaction (account_number, statement_id, order) is already recorded',
    'duplicate_bank_transaction',
  );
}

/**
 * Records a bank transaction. A statement line already recorded (same account, statement and
 * order in the organisation) is refused with 409 and nothing is written. A paid record is looked up
 * at its owning service: found → matched (`finance.payment.matched`), not found → unmatched (posted
 * to suspense by accounting, never applied). The legal-currency value is stored with it: at rate 1
 * in the legal currency, else at the given fx_rate, else at the paid document's rate; without any,
 * 422 `fx_rate_required` and nothing is written.
 */
export async function recordBankTransaction(ctx: TenantContext, req: BankTransactionRequest) {
  const { em, orgId } = ctx;
  const keyed = req.account_number != null && req.statement_id != null && req.order != null;
  if (keyed) {
    const existing = await em.count(BankTransactionSchema, { accountNumber: req.account_number, statementId: req.statement_id, order: req.order });
    if (existing > 0) throw duplicate();
  }
  const { status, match, document } = await resolvePaidRecord(ctx, req.paid_record, req, 'paid_record');
  const legalCurrency = await legalCurrencyOf(em, orgId);
  const legal = paymentLegal({
    amount: String(req.amount),
    currency: req.currency,
    legalCurrency,
    fxRate: req.fx_rate,
    currencyCoef: req.currency_coef,
    paymentAmount: req.payment_amount,
    document: match ? document : null,
    path: 'fx_rate',
  });
  assertWithinAmountLimit([['amount_leg', legal.amountLeg]]);
  let settlement: string | null = null;
  if (match && document) {
    // priced after every earlier payment of the document, which the lock makes final
    let before = NOTHING_SETTLED;
    if (settlementNeedsHistory(document, legalCurrency)) {
      await lockPaidDocuments(ctx, [match]);
      before = await settledSoFar(ctx, match);
    }
    settlement = settlementLeg({ type: match.type, applied: match.amount, currency: req.currency, legalCurrency, document, before });
  }

  const bt = em.create(BankTransactionSchema, {
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
    amountLeg: legal.amountLeg,
    settlementAmountLeg: settlement,
    createdAt: new Date(),
  });
  try {
    await em.flush();
  } catch (e) {
    // A concurrent twin got in between the check and the insert.
    if (isUniqueViolation(e)) throw duplicate();
    throw e;
  }
  const view = bankTransactionView(bt);
  await ctx.emit({ subject: SUBJECTS.financeBankTransactionRecorded, orgId, resource: String(bt.id), data: view });
  if (match) {
    await emitPaymentMatched(ctx, { paymentId: bt.id, source: 'bank_transaction', match, date: req.date_transaction });
  }
  return view;
}

/** The stored transaction (spec §2.4) plus whether and what it matched. */
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
    amount_leg: toWire(bt.amountLeg),
    settlement_amount_leg: toWire(bt.settlementAmountLeg),
  };
}

const SORTABLE: Record<string, keyof BankTransaction> = {
  id: 'id',
  date_transaction: 'dateTransaction',
  amount: 'amount',
  account_number: 'accountNumber',
  statement_id: 'statementId',
  order: 'order',
  partner_name: 'partnerName',
  match_status: 'matchStatus',
};
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

export async function listBankTransactions(
  em: EntityManager,
  q: { from: number; take: number; search?: string; sort?: string[]; date_transaction?: string },
) {
  const sort = parseSort(q.sort, Object.keys(SORTABLE), [{ field: 'id', direction: 'asc' }]);
  const where: FilterQuery<BankTransaction> & Record<string, unknown> = {};
  const range = parseRange('date_transaction', q.date_transaction, 'date');
  if (range) {
    const cond: Record<string, string> = {};
    if (range.from) cond.$gte = range.from;
    if (range.to) cond.$lte = range.to;
    where.dateTransaction = cond;
  }
  if (q.search) {
    const like = `%${escapeLike(q.search)}%`;
    where.$or = [
      { description: { $ilike: like } },
      { partnerName: { $ilike: like } },
      { paymentReference: { $ilike: like } },
      { accountNumber: { $ilike: like } },
    ];
  }
  const orderBy = sort.map((s) => ({ [SORTABLE[s.field]]: s.direction }) as QueryOrderMap<BankTransaction>);
  if (!sort.some((s) => s.field === 'id')) orderBy.push({ id: 'asc' });
  if (q.take === 0) return { rows: [] as BankTransaction[], total: await em.count(BankTransactionSchema, where) };
  const [rows, total] = await em.findAndCount(BankTransactionSchema, where, { orderBy, offset: q.from, limit: q.take });
  return { rows, total };
}
