import { Dec } from '@ledgerline/core/money';
import { RPC_SUBJECTS, contactResolveAnswerSchema, payableBillsAnswerSchema, type PayableBill, type PaymentOrder, type PaymentOrderRequest } from '@ledgerline/contracts';
import { BusinessRuleError, ConflictError, UpstreamError, addDays, isUniqueViolation, localClock, organisationReplica, sqlRows, type FieldError, type TenantContext } from '@ledgerline/service-kit';
import { orderAccount, type OrderAccount } from './accounts.js';
import { endToEndId } from './order-file.js';
import { symbolDigits } from '../payment-symbols.js';
import { publish, readPaymentOrder } from './orders.js';

/*
 * Making a payment order (issue 76, decision 239): the bills asked of purchase in one request,
 * every one checked before anything is stored, then the order and one item per bill.
 */

/** A bank takes orders for today and up to a year ahead (in Prague, where the banks are). */
function refuseExecutionDate(ctx: TenantContext, day: string): void {
  const today = localClock(ctx.now(), 'Europe/Prague').day;
  const latest = addDays(today, 365);
  if (day >= today && day <= latest) return;
  const message = day < today ? `execution_date ${day} is in the past (today is ${today})` : `execution_date ${day} is more than a year ahead (at most ${latest})`;
  throw new BusinessRuleError(message, 'execution_date_out_of_range', [{ path: 'execution_date', message, code: 'execution_date_out_of_range' }]);
}

/** The bills as purchase answers them, one per id asked. */
async function payableBills(ctx: TenantContext, ids: number[]): Promise<PayableBill[]> {
  const answer = payableBillsAnswerSchema.safeParse(await ctx.ask(RPC_SUBJECTS.purchasePayableBills, { ids }));
  if (!answer.success || answer.data.bills.length !== ids.length) throw new UpstreamError(502, 'purchase', 'unreadable answer about the bills to pay');
  return answer.data.bills;
}

/** The vendor's account: the bill's own, else the first of its contact's accounts that reads as one. */
async function vendorAccount(ctx: TenantContext, bill: PayableBill): Promise<OrderAccount | null> {
  const own = orderAccount(bill.bank_account_number);
  if (own || bill.bank_account_number?.trim() || bill.contact_id === null) return own;
  const answer = contactResolveAnswerSchema.safeParse(await ctx.ask(RPC_SUBJECTS.settingsContactResolve, { id: bill.contact_id }));
  if (!answer.success || !answer.data.found) return null;
  const accounts = (answer.data.contact?.bank_accounts ?? []) as Array<{ account_number?: string | null; iban?: string | null; bic?: string | null }>;
  for (const a of accounts) {
    const account = orderAccount(a);
    if (account) return account;
  }
  return null;
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** The name the bank writes as the payee's. */
const vendorName = (bill: PayableBill) => text(bill.vendor?.business_name) ?? text(bill.vendor?.name) ?? `Bill ${bill.no}`;

interface PlannedItem {
  bill: PayableBill;
  amount: string;
  account: OrderAccount;
  riskAccepted: boolean;
}

/**
 * Every bill checked before anything is stored: all problems of the first kind found answered
 * together, each naming its bill (`bill_ids[i]`).
 */
async function planItems(ctx: TenantContext, req: PaymentOrderRequest, bills: PayableBill[]): Promise<{ currency: string; items: PlannedItem[] }> {
  const problems = (code: string, found: Array<{ i: number; message: string }>, summary: string) => {
    if (found.length === 0) return;
    const errors: FieldError[] = found.map(({ i, message }) => ({ path: `bill_ids[${i}]`, message, code }));
    throw new BusinessRuleError(`${summary}: ${found.map((f) => f.message).join('; ')}`, code, errors);
  };
  problems('bill_not_found', bills.flatMap((b, i) => (b.found ? [] : [{ i, message: `bill ${b.id} not found` }])), 'Unknown bills');
  problems(
    'bill_not_payable',
    bills.flatMap((b, i) => (b.kind === 'bill' || b.kind === 'advance' ? [] : [{ i, message: `${b.no} is ${b.kind === 'vendor_credit' ? 'a vendor credit' : "a vendor's tax document on an advance"}, not a bill to pay` }])),
    'Not bills to pay',
  );
  problems('bill_paid', bills.flatMap((b, i) => (Dec(b.amount_due ?? '0').gt(0) ? [] : [{ i, message: `${b.no} has nothing left to pay` }])), 'Nothing to pay');
  const currency = bills[0].currency!;
  problems(
    'payment_order_currency_mixed',
    bills.flatMap((b, i) => (b.currency === currency ? [] : [{ i, message: `${b.no} is in ${b.currency}, not ${currency}` }])),
    'One payment order pays bills of one currency',
  );
  const accounts: Array<OrderAccount | null> = [];
  for (const b of bills) accounts.push(await vendorAccount(ctx, b));
  problems(
    'vendor_account_missing',
    bills.flatMap((b, i) =>
      accounts[i]
        ? []
        : [{ i, message: b.bank_account_number?.trim() ? `${b.no}: bank_account_number ${b.bank_account_number} is neither a Czech account number nor an IBAN` : `${b.no} names no bank account to pay (bank_account_number, or an account of its contact)` }],
    ),
    "Bills without the vendor's account",
  );
  problems(
    'vendor_risk',
    bills.flatMap((b, i) =>
      b.vendor_check_status === 'risk' && !req.accept_risk ? [{ i, message: `${b.no}: ${b.vendor_check_reasons.join('; ') || 'the vendor check says risk'} (send accept_risk: true to pay it anyway)` }] : [],
    ),
    'Paying these bills makes the organisation liable for their VAT (§109 of the VAT Act)',
  );
  return {
    currency,
    items: bills.map((bill, i) => ({ bill, amount: Dec(bill.amount_due!).toFixed(2), account: accounts[i]!, riskAccepted: bill.vendor_check_status === 'risk' })),
  };
}

/** 409 naming the bills another open order already holds (the unique index keeps a race from passing this). */
async function refuseOrderedBills(ctx: TenantContext, ids: number[]): Promise<void> {
  const rows = await sqlRows<{ bill_id: string; bill_no: string; order_id: string }>(
    ctx.em,
    `select bill_id, bill_no, order_id from payment_order_items where org_id = ? and bill_id = any(?::bigint[]) and status = 'ordered'`,
    [ctx.orgId, ids],
  );
  if (rows.length === 0) return;
  const errors = rows.map((r) => ({ path: `bill_ids[${ids.indexOf(Number(r.bill_id))}]`, message: `${r.bill_no} is in payment order ${r.order_id}`, code: 'bill_already_ordered' }));
  throw new ConflictError(`Bills already in an open payment order: ${errors.map((e) => e.message).join('; ')} (cancel that order first)`, 'bill_already_ordered', errors);
}

async function fromAccountOf(ctx: TenantContext, req: PaymentOrderRequest): Promise<{ account: OrderAccount; name: string }> {
  const org = await organisationReplica(ctx);
  const name = org?.name ?? text(org?.profile.name) ?? `Organisation ${ctx.orgId}`;
  const given = req.from_account ?? (org?.profile.bank_account as PaymentOrderRequest['from_account']) ?? null;
  const account = orderAccount(given);
  if (account?.iban) return { account, name };
  const message = given ? 'from_account is neither a Czech account number nor an IBAN' : "no from_account given and the organisation's profile names no bank account";
  throw new BusinessRuleError(message, 'from_account_missing', [{ path: 'from_account', message, code: 'from_account_missing' }]);
}

export async function createPaymentOrder(ctx: TenantContext, req: PaymentOrderRequest): Promise<PaymentOrder> {
  refuseExecutionDate(ctx, req.execution_date);
  const from = await fromAccountOf(ctx, req);
  const bills = await payableBills(ctx, req.bill_ids);
  const { currency, items } = await planItems(ctx, req, bills);
  await refuseOrderedBills(ctx, req.bill_ids);
  const total = items.reduce((s, i) => s.plus(i.amount), Dec(0)).toFixed(2);
  const [{ id }] = await sqlRows<{ id: string }>(
    ctx.em,
    `insert into payment_orders (org_id, status, currency, execution_date, total_amount, from_account, message_id, created_at, updated_at)
     values (?, 'open', ?, ?, ?, ?::jsonb, '', ?, ?) returning id`,
    [ctx.orgId, currency, req.execution_date, total, JSON.stringify(from.account), ctx.now(), ctx.now()],
  );
  const orderId = Number(id);
  await sqlRows(ctx.em, `update payment_orders set message_id = ? where id = ?`, [`LL-${ctx.orgId}-PO-${orderId}`, orderId]);
  try {
    for (const [i, item] of items.entries()) {
      const line = i + 1;
      const symbols = { variableSymbol: symbolDigits(item.bill.payment_reference), specificSymbol: null, constantSymbol: req.constant_symbol ?? null };
      await sqlRows(
        ctx.em,
        `insert into payment_order_items (org_id, order_id, line, bill_id, bill_no, vendor_doc_no, vendor_name, amount, currency, account, variable_symbol,
           constant_symbol, specific_symbol, message, end_to_end_id, risk_accepted, status)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, 'ordered')`,
        [
          ctx.orgId,
          orderId,
          line,
          item.bill.id,
          item.bill.no,
          item.bill.vendor_doc_no,
          vendorName(item.bill),
          item.amount,
          currency,
          JSON.stringify(item.account),
          symbols.variableSymbol,
          symbols.constantSymbol?.padStart(4, '0') ?? null,
          symbols.specificSymbol,
          item.bill.vendor_doc_no ?? item.bill.no,
          endToEndId({ orderId, line, currency, ...symbols }),
          item.riskAccepted,
        ],
      );
    }
  } catch (err) {
    // another order took one of the bills between the check and the insert
    if (isUniqueViolation(err)) throw new ConflictError('A bill of this order was put in another payment order at the same time; read the bills and try again', 'bill_already_ordered');
    throw err;
  }
  return publish(ctx, await readPaymentOrder(ctx, orderId));
}
