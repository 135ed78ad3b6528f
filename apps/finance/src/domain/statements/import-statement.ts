import type { EntityManager } from '@mikro-orm/postgresql';
import { Dec } from '@ledgerline/core/money';
import { DOCUMENT_FIND_BATCH, RPC_SUBJECTS, type DocumentLookupAnswer, bankStatementsExpectedAnswerSchema, documentLookupAnswerSchema, documentFindBatchAnswerSchema, type BankStatement as BankStatementView, type BankStatementImportQuery, type BankTransactionRequest } from '@ledgerline/contracts';
import { BusinessRuleError, ConflictError, NotFoundError, ValidationError, howToGiveRate, isoDay, legalCurrencyOf, rateFrom, tableRates, nextIds, postingDate, postingSettingsOf, parseRange, rangeCondition, readEntities, readEntity, refuseClosedPeriod, sqlRows, toWire, findAndCount, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { BankStatementSchema, BankTransactionSchema, type BankStatement, type StoredStatementEntry } from '../../db/entities.js';
import { bankTransactionView, recordBankTransaction } from '../bank-transactions.js';
import { readStatementFile } from './read-statement-file.js';
import { entryKey, planStatementEntries } from './entry-duplicates.js';
import { accountSpelling, balanceDifference, type ParsedStatement, type StatementEntry } from './statement.js';
import { refinedPaidType } from '../matching.js';
import { orderedBillsPaid } from '../payment-orders/statement-matching.js';

/*
 * POST /finance/bank/statements (issue 17): a statement file becomes bank transactions, all in the
 * request's one transaction. Before anything is written every statement must reconcile (opening
 * + Σ entries = closing, else 422 `statement_does_not_balance`) and be new (same account, number
 * and period end → 409). Then each entry, in order: one recorded from another statement (same
 * account, bank reference, amount and booking day; `entry-duplicates.ts`) is reported as a
 * duplicate and not recorded again, every entry of the statement itself is kept, and what cannot
 * be told apart refuses the file (422); a fee goes to 568; money in is
 * matched to the one open invoice its variable symbol, its payment reference or its amount points
 * to (asking sales, which owns the invoices), money out to a vendor bill (asking purchase), and
 * posted through the payment path every bank transaction takes, so the document is paid and the
 * ledger shows Dr 221 / Cr 311 (or Dr 321 / Cr 221); the rest waits
 * in 395 suspense until `POST …/transactions/{id}/match`.
 */

const FEES_ACCOUNT = { number: '568', name: 'Bank fees' };

/**
 * Entries one request records: about 2–3 ms each on a small machine, so a file at the limit is
 * answered well within the gateway's upstream timeout instead of timing out while it commits.
 */
export const MAX_STATEMENT_ENTRIES = 5000;

function refuseUnbalanced(statements: ParsedStatement[]): void {
  const off = statements.map((s) => ({ s, diff: balanceDifference(s) })).filter((x) => !x.diff.isZero());
  if (off.length === 0) return;
  throw new BusinessRuleError(
    `The statement does not balance: ${off.map(({ s, diff }) => `${s.statementNo}: opening ${s.openingBalance} + entries ≠ closing ${s.closingBalance} (off by ${diff.toString()})`).join('; ')}`,
    'statement_does_not_balance',
    off.map(({ s, diff }) => ({ path: `statement ${s.statementNo}`, message: `opening + Σ entries − closing = ${diff.toString()}`, code: 'statement_does_not_balance' })),
  );
}

async function refuseImported(em: EntityManager, statements: ParsedStatement[]): Promise<void> {
  const seen = new Set<string>();
  for (const s of statements) {
    const key = `${s.account}|${s.statementNo}|${s.dateTo}`;
    const again = seen.has(key) || (await em.count(BankStatementSchema, { account: s.account, statementNo: s.statementNo, dateTo: s.dateTo })) > 0;
    if (again) throw new ConflictError(`Statement ${s.statementNo} of account ${s.account} ending ${s.dateTo} has already been imported`, 'statement_already_imported');
    seen.add(key);
  }
}

/**
 * A bank integration that names the statement's account (`statements` of sk.bank_a and the like)
 * says in which format its statements come: one in another format is refused, since it is not
 * what the integration delivers (a file for another account, or exported wrongly).
 */
async function refuseUnexpectedFormat(ctx: TenantContext, statements: ParsedStatement[]): Promise<void> {
  for (const s of statements) {
    const answer = bankStatementsExpectedAnswerSchema.safeParse(await ctx.ask(RPC_SUBJECTS.settingsBankStatements, { account: s.account }));
    if (!answer.success || !answer.data.found || !answer.data.format || answer.data.format === s.format) continue;
    throw new BusinessRuleError(
      `The bank integration ${answer.data.provider}${answer.data.key ? ` (${answer.data.key})` : ''} delivers ${answer.data.format} statements of account ${s.account}; this file is ${s.format}`,
      'statement_format_unexpected',
      [{ path: 'format', message: `expected ${answer.data.format}`, code: 'statement_format_unexpected' }],
    );
  }
}

/** Contacts each account has paid for, or been paid by, before: amount matching looks among their documents first. */
async function payersOf(ctx: TenantContext, partnerAccounts: Array<string | null>): Promise<Map<string, number[]>> {
  const accounts = [...new Set(partnerAccounts.filter((a): a is string => a !== null))];
  const payers = new Map<string, number[]>();
  if (accounts.length === 0) return payers;
  const rows = await sqlRows<{ account: string; id: string }>(
    ctx.em,
    `select distinct partner_account_number as account, (match->'contact'->>'id') as id from bank_transactions
      where org_id = ? and partner_account_number = any(?::text[]) and match_status = 'matched' and match->'contact'->>'id' ~ '^[0-9]{1,15}$'`,
    [ctx.orgId, accounts],
  );
  for (const r of rows) {
    const ids = payers.get(r.account) ?? [];
    if (ids.length < 50) ids.push(Number(r.id));
    payers.set(r.account, ids);
  }
  return payers;
}

type Found = { type: 'sales_invoice' | 'sales_proforma' | 'purchase_bill' | 'purchase_advance'; document: DocumentLookupAnswer; matchedBy: string };

/**
 * The open document each movement pays and what the match rests on: money in an invoice (asking
 * sales), money out a vendor bill (asking purchase), the movements of one direction asked
 * together; none for a fee or a movement of nothing, or when no document fits alone.
 */
async function findPaidDocuments(ctx: TenantContext, entries: StatementEntry[]): Promise<Map<StatementEntry, Found>> {
  const found = await orderedBillsFound(ctx, entries);
  for (const [type, subject, inDirection] of [
    ['sales_invoice', RPC_SUBJECTS.salesDocumentFind, (e: StatementEntry) => Dec(e.amount).gt(0)],
    ['purchase_bill', RPC_SUBJECTS.purchaseDocumentFind, (e: StatementEntry) => Dec(e.amount).lt(0)],
  ] as const) {
    const asked = entries.filter((e) => !e.isFee && inDirection(e) && !found.has(e));
    for (let i = 0; i < asked.length; i += DOCUMENT_FIND_BATCH) {
      const chunk = asked.slice(i, i + DOCUMENT_FIND_BATCH);
      const payers = await payersOf(ctx, chunk.map((e) => e.partnerAccount));
      const movements = chunk.map((e) => ({
        variable_symbol: e.variableSymbol,
        payment_reference: e.reference,
        amount: Dec(e.amount).abs().toFixed(2),
        currency: e.currency,
        contact_ids: (e.partnerAccount && payers.get(e.partnerAccount)) || [],
        counterparty_account: e.partnerAccount,
      }));
      const answer = documentFindBatchAnswerSchema.safeParse(await ctx.ask(subject, { movements }));
      if (!answer.success || answer.data.answers.length !== chunk.length) continue; // an answer we cannot read matches nothing
      answer.data.answers.forEach((a, j) => {
        // sales answers an invoice, or a proforma once no invoice fits (decision 236); purchase a bill or an advance bill (237)
        const paid = refinedPaidType(type, a.type) as Found['type'];
        if (a.found && a.id != null) found.set(chunk[j], { type: paid, document: a, matchedBy: a.matched_by ?? 'variable_symbol' });
      });
    }
  }
  return found;
}

/**
 * Movements that pay the bills of open payment orders (issue 76): found by the order's own item,
 * then confirmed by purchase as any paid bill is (a bill gone since is left to the other clues).
 */
async function orderedBillsFound(ctx: TenantContext, entries: StatementEntry[]): Promise<Map<StatementEntry, Found>> {
  const found = new Map<StatementEntry, Found>();
  const out = entries.filter((e) => !e.isFee && Dec(e.amount).lt(0));
  const paid = await orderedBillsPaid(ctx, out);
  for (const [index, billId] of paid) {
    const answer = documentLookupAnswerSchema.safeParse(await ctx.ask(RPC_SUBJECTS.purchaseDocumentLookup, { type: 'purchase_bill', id: billId }));
    if (!answer.success || !answer.data.found || answer.data.id == null) continue;
    found.set(out[index], { type: refinedPaidType('purchase_bill', answer.data.type) as Found['type'], document: answer.data, matchedBy: 'payment_order' });
  }
  return found;
}

/**
 * The account's transactions with the references of a statement's entries, by entry key, each
 * key's ids in the order of their occurrence (an overlapping statement's entries, or ones recorded
 * one by one).
 */
async function recordedEntries(ctx: TenantContext, s: ParsedStatement): Promise<Map<string, number[]>> {
  const refs = [...new Set(s.entries.map((e) => e.bankReference).filter((r): r is string => r !== null))];
  const known = new Map<string, number[]>();
  if (refs.length === 0) return known;
  const rows = await sqlRows<{ id: string; reference: string; amount: string; day: string }>(
    ctx.em,
    `select id, bank_reference as reference, amount::text as amount, coalesce(date_accounting, date_transaction)::text as day
       from bank_transactions where org_id = ? and account_number = ? and bank_reference = any(?::text[])
      order by reference_occurrence, id`,
    [ctx.orgId, s.account, refs],
  );
  for (const r of rows) {
    const key = entryKey(r.reference, r.amount, r.day)!;
    known.set(key, [...(known.get(key) ?? []), Number(r.id)]);
  }
  return known;
}

/**
 * Imports of one account wait for each other (a transaction-scoped lock, in the accounts' order so
 * two files cannot wait on each other): an overlapping statement sees what the other recorded.
 */
async function lockAccounts(ctx: TenantContext, statements: ParsedStatement[]): Promise<void> {
  for (const account of [...new Set(statements.map((s) => s.account))].sort()) {
    await sqlRows(ctx.em, `select pg_advisory_xact_lock(hashtextextended('finance.bank-account:' || ?::text || ':' || ?::text, 0))`, [ctx.orgId, account]);
  }
}

/** An entry's transaction is dated by its value date, and posted on its booking date. */
const entryDates = (e: StatementEntry) => ({ date_transaction: e.valueDate ?? e.bookingDate, date_accounting: e.bookingDate });

/**
 * An entry that would post in a closed period (decision 156) refuses the whole file, 409
 * `period_locked` naming the entries, and nothing is imported: the statement belongs to the
 * closed period, to be imported when the period is reopened. Zero entries move no money and post
 * nothing.
 */
async function refuseClosedPeriodEntries(ctx: TenantContext, statements: ParsedStatement[]): Promise<void> {
  const { lockDate } = await postingSettingsOf(ctx);
  if (!lockDate) return;
  for (const s of statements) {
    const dates = s.entries
      .filter((e) => !Dec(e.amount).isZero())
      .map((e) => ({ field: `statement ${s.statementNo} entry ${e.order}`, date: postingDate.bankTransaction(entryDates(e)).date }));
    refuseClosedPeriod(lockDate, `statement ${s.statementNo} of account ${s.account}`, dates);
  }
}

function entryRequest(s: ParsedStatement, statementId: number, e: StatementEntry): BankTransactionRequest {
  const description = [e.isReversal ? 'Reversal' : null, e.message].filter(Boolean).join(': ') || null;
  return {
    account_number: s.account,
    statement_id: statementId,
    order: e.order,
    bank_reference: e.bankReference,
    amount: Number(e.amount),
    currency: e.currency,
    ...entryDates(e),
    description: description?.slice(0, 10_000) ?? null,
    payment_reference: (e.variableSymbol ?? e.reference)?.slice(0, 140) ?? null,
    partner_account_number: e.partnerAccount,
    partner_name: e.partnerName,
    raw_message: [e.variableSymbol && `VS ${e.variableSymbol}`, e.constantSymbol && `KS ${e.constantSymbol}`, e.specificSymbol && `SS ${e.specificSymbol}`, e.reference, e.message, e.extra].filter(Boolean).join(' | ') || null,
    gl_account: e.isFee ? FEES_ACCOUNT : null,
  };
}

/**
 * A statement in a currency the exchange-rate table has no rate of on an entry's day is refused
 * before anything is recorded, saying which statement and how to give the rate.
 */
function refuseMissingRates(s: ParsedStatement, asked: Array<{ currency: string; date: string }>, rates: Awaited<ReturnType<typeof tableRates>>, legalCurrency: string): void {
  const missing = asked.find((a) => !rateFrom(rates, a.currency, a.date));
  if (!missing) return;
  const how = howToGiveRate(missing.currency, missing.date, legalCurrency);
  const message = `Statement ${s.statementNo} of account ${s.account} is in ${missing.currency}, which has no rate to ${legalCurrency} in force on ${missing.date}: ${how}, then import the file again`;
  throw new BusinessRuleError(message, 'fx_rate_required', [{ path: `statement ${s.statementNo}`, message: `no ${missing.currency} rate on or before ${missing.date}`, code: 'fx_rate_required' }]);
}

async function importOne(ctx: TenantContext, s: ParsedStatement): Promise<BankStatement> {
  const { em, orgId } = ctx;
  const statement = em.create(BankStatementSchema, {
    orgId,
    format: s.format,
    account: s.account,
    statementNo: s.statementNo,
    currency: s.currency,
    openingBalance: s.openingBalance,
    closingBalance: s.closingBalance,
    dateFrom: s.dateFrom,
    dateTo: s.dateTo,
    entries: [],
    createdAt: new Date(),
  });
  await em.flush();
  const outcomes: StoredStatementEntry[] = [];
  const plans = planStatementEntries(s.entries, await recordedEntries(ctx, s), `statement ${s.statementNo}`);
  const fresh = s.entries.filter((_, i) => plans[i].kind === 'record');
  const paid = await findPaidDocuments(ctx, fresh);
  const legalCurrency = await legalCurrencyOf(ctx);
  // an account in a foreign currency: every booking day's rate in force, asked for at once
  const foreign = fresh.filter((e) => e.currency !== legalCurrency).map((e) => ({ currency: e.currency, date: postingDate.bankTransaction(entryDates(e)).date }));
  const rates = foreign.length ? await tableRates(ctx, foreign) : undefined;
  if (rates) refuseMissingRates(s, foreign, rates, legalCurrency);
  const ids = await nextIds(em, BankTransactionSchema, fresh.length);
  for (const [i, e] of s.entries.entries()) {
    const base = { order: e.order, amount: e.amount, variable_symbol: e.variableSymbol, bank_reference: e.bankReference };
    const plan = plans[i];
    if (plan.kind === 'skip') {
      // an informational entry of zero (some banks list cancelled orders so) moves no money
      outcomes.push({ ...base, status: 'skipped', matched_by: null, transaction_id: null });
      continue;
    }
    if (plan.kind === 'duplicate') {
      outcomes.push({ ...base, status: 'duplicate', matched_by: null, transaction_id: plan.transactionId });
      continue;
    }
    const found = paid.get(e);
    const req = entryRequest(s, statement.id, e);
    if (found) req.paid_record = { type: found.type, id: found.document.id };
    // a new statement's entries cannot repeat its own (account, statement, order); entries were
    // planned above (so each takes one of the ids taken for them); the owner's find answer is its
    // lookup answer, so it is not asked again
    const view = await recordBankTransaction(ctx, req, {
      matchedBy: found?.matchedBy ?? null,
      suspense: true,
      id: ids.shift(),
      legalCurrency,
      document: found?.document,
      referenceOccurrence: plan.occurrence,
      rates,
    });
    const status = view.match_status === 'matched' ? 'matched' : e.isFee ? 'fee' : 'unmatched';
    outcomes.push({ ...base, status, matched_by: status === 'matched' ? (found?.matchedBy ?? null) : null, transaction_id: view.id });
  }
  statement.entries = outcomes;
  await em.flush();
  return statement;
}

export async function importBankStatements(ctx: TenantContext, file: unknown, query: BankStatementImportQuery): Promise<{ statements: BankStatementView[] }> {
  if (!(file instanceof Uint8Array) || file.length === 0) {
    throw new ValidationError('Send the statement file as the body (Content-Type application/xml, text/plain or application/octet-stream)', [
      { path: 'body', message: 'the statement file is missing', code: 'required' },
    ]);
  }
  const statements = readStatementFile(file, query.format, query.currency ?? (await legalCurrencyOf(ctx)));
  const entries = statements.reduce((n, s) => n + s.entries.length, 0);
  if (entries > MAX_STATEMENT_ENTRIES) {
    throw new BusinessRuleError(`The file holds ${entries} entries; import at most ${MAX_STATEMENT_ENTRIES} per request (split it by statement or by day)`, 'statement_too_long', [
      { path: 'body', message: `at most ${MAX_STATEMENT_ENTRIES} entries`, code: 'statement_too_long' },
    ]);
  }
  return importParsedStatements(ctx, statements);
}

/**
 * Statements read from a file or fetched from a bank (issue 78): each reconciled, new, in the
 * format its bank integration delivers and in an open period, then imported entry by entry.
 */
export async function importParsedStatements(ctx: TenantContext, statements: ParsedStatement[]): Promise<{ statements: BankStatementView[] }> {
  refuseUnbalanced(statements);
  await lockAccounts(ctx, statements);
  await refuseImported(ctx.em, statements);
  await refuseUnexpectedFormat(ctx, statements);
  await refuseClosedPeriodEntries(ctx, statements);
  const stored: BankStatement[] = [];
  for (const s of statements) stored.push(await importOne(ctx, s));
  return { statements: await Promise.all(stored.map((s) => statementView(ctx, s))) };
}

export async function statementView(scope: TenantScope, s: BankStatement): Promise<BankStatementView> {
  const { em, orgId } = scope;
  const ids = [...new Set(s.entries.map((e) => e.transaction_id).filter((id): id is number => id != null))];
  const transactions = new Map((await readEntities(em, BankTransactionSchema, orgId, ids)).map((t) => [Number(t.id), bankTransactionView(t)]));
  return {
    ...statementSummary(s),
    entries: s.entries.map((e) => {
      const transaction = e.transaction_id != null ? (transactions.get(e.transaction_id) ?? null) : null;
      // an entry's match as it stands: matched later (…/match), or taken back (…/unmatch) and
      // perhaps matched again, which is manual whatever the import found
      const status = transaction && (e.status === 'matched' || e.status === 'unmatched') ? (transaction.match_status === 'matched' ? 'matched' : 'unmatched') : e.status;
      const asImported = status === e.status && transaction?.version === 1;
      return {
        order: e.order,
        status,
        matched_by: status !== 'matched' ? null : asImported ? (e.matched_by as BankStatementView['entries'][number]['matched_by']) : 'manual',
        amount: toWire(e.amount)!,
        variable_symbol: e.variable_symbol,
        bank_reference: e.bank_reference,
        transaction,
      };
    }),
  };
}

export function statementSummary(s: BankStatement): Omit<BankStatementView, 'entries'> {
  return {
    id: s.id,
    format: s.format,
    account: s.account,
    statement_no: s.statementNo,
    currency: s.currency.trim(),
    opening_balance: toWire(s.openingBalance)!,
    closing_balance: toWire(s.closingBalance)!,
    date_from: isoDay(s.dateFrom)!,
    date_to: isoDay(s.dateTo)!,
    created_at: s.createdAt.toISOString(),
  };
}

export async function findStatement(scope: TenantScope, id: number): Promise<BankStatement> {
  const { em, orgId } = scope;
  const s = await readEntity(em, BankStatementSchema, orgId, id);
  if (!s) throw new NotFoundError(`Bank statement ${id} not found`, 'bank_statement_not_found');
  return s;
}

export async function listStatements(em: EntityManager, q: { from: number; take: number; account?: string; date_from?: string; date_to?: string }) {
  const where: Record<string, unknown> = {};
  if (q.account) where.account = accountSpelling(q.account);
  const starts = parseRange('date_from', q.date_from, 'date');
  const ends = parseRange('date_to', q.date_to, 'date');
  // a statement's period never starts after it ends: such a filter is a mistake, not an empty page
  if (starts?.from && ends?.to && starts.from > ends.to) {
    throw new ValidationError(`date_from starts at ${starts.from}, after date_to ends at ${ends.to}`, [
      { path: 'date_from', message: `starts after date_to ends (${ends.to})`, code: 'invalid_range' },
    ]);
  }
  if (starts) where.dateFrom = rangeCondition('date_from', q.date_from, 'date');
  if (ends) where.dateTo = rangeCondition('date_to', q.date_to, 'date');
  const [rows, total] = await findAndCount(em, BankStatementSchema, where, { orderBy: { id: 'asc' }, offset: q.from, limit: q.take });
  return { rows, total };
}
