import { Dec, dec, roundMoney, type DecimalInput } from '@ledgerline/service-kit';
import {
  ACCOUNTS,
  COUNTER_ACCOUNT_BY_PAID_RECORD,
  POSTING_MAP,
  TAX_ROLES,
  type Figure,
  type PostingRule,
  type Side,
  type SourceType,
} from './posting-map.js';
import type { BankTransactionDocument, PayoutDocument, PurchaseDocument, SalesDocument, TaxLine } from './source-documents.js';
import { vatReportingFields, type SupplyKind, type VatReportingFields } from './vat.js';

/*
 * Pure posting rules: a source document (as its event carries it) → one balanced ledger entry in
 * the legal currency. Stored `_leg` figures are used as they are and summed, never recomputed;
 * only a document that lacks them is converted with its own fx rate.
 */

export class UnbalancedEntryError extends Error {
  constructor(
    readonly debit: Dec,
    readonly credit: Dec,
    what: string,
  ) {
    super(`${what} does not balance: debit ${debit.toFixed(2)} ≠ credit ${credit.toFixed(2)}`);
    this.name = 'UnbalancedEntryError';
  }
}

/** The document lacks legal-currency figures and the rate to derive them. */
export class MissingLegalFiguresError extends Error {
  constructor(what: string) {
    super(`${what}: no legal-currency (_leg) figures and no fx_rate to derive them`);
    this.name = 'MissingLegalFiguresError';
  }
}

type Json = Record<string, unknown>;

export interface DraftTaxRow extends VatReportingFields {
  debit: Dec;
  credit: Dec;
  gl_account_number: string;
  description: string | null;
  currency: string | null;
  tax_rate: Dec | null;
  tax_rate_rc: Dec | null;
  is_reverse_charge: boolean;
  tax_index: number | null;
  tax_code: string | null;
  tax_name: string | null;
  tax_base_in: Dec | null;
  tax_base_in_leg: Dec | null;
  tax_base_out: Dec | null;
  tax_base_out_leg: Dec | null;
  tax_amount_in: Dec | null;
  tax_amount_in_leg: Dec | null;
  tax_amount_claim: Dec | null;
  tax_amount_claim_leg: Dec | null;
  tax_amount_out: Dec | null;
  tax_amount_out_leg: Dec | null;
  tax_deduction_ratio: Dec | null;
  net_deduction_ratio: Dec | null;
}

export interface DraftRow {
  role: string;
  gl_account_number: string;
  debit: Dec;
  credit: Dec;
  description: string | null;
  currency: string | null;
  payment_amount: Dec | null;
  payment_reference: string | null;
  contact: Json | null;
  paid_record: Json | null;
  tax_deduction_ratio: Dec | null;
  net_deduction_ratio: Dec | null;
  taxes: DraftTaxRow[];
}

export interface SourceRef {
  type: SourceType;
  id: number;
  version: number;
  no: string | null;
}

export interface LedgerEntryDraft {
  type: SourceType | 'reversal';
  source: SourceRef;
  entryKind: 'posting' | 'reversal';
  datePosting: string;
  no: string | null;
  vendorDocNo: string | null;
  creditedDocNo: string | null;
  paymentReference: string | null;
  description: string | null;
  dateIssued: string | null;
  dateDue: string | null;
  dateTaxable: string | null;
  dateTaxApplied: string | null;
  currency: string;
  legalCurrency: string;
  precision: number;
  transactionType: Json | null;
  contact: Json | null;
  bankAccount: Json | null;
  taxNexus: Json | null;
  paidRecord: Json | null;
  fxRates: Array<{ rate: number; currency: string; source: string }>;
  taxDeductionRatio: Dec | null;
  netDeductionRatio: Dec | null;
  amountPaid: Dec | null;
  amountDue: Dec | null;
  /** Σ debit = Σ credit of the rows. */
  total: Dec;
  rows: DraftRow[];
}

export interface PostingOptions {
  /** Legal currency when the event does not name it. */
  legalCurrency: string;
  /** Country of the organisation when the document does not carry it (VAT reporting). */
  orgCountry?: string;
  /** Posting date when the document has none (payouts): the event's date. */
  fallbackDate?: string;
  /** Control-statement section of the credited document (credit notes). */
  controlStatementOverride?: string | null;
}

// --- conversions ------------------------------------------------------------------------------

interface Conversion {
  isLegal: boolean;
  rate: Dec | null;
  coef: Dec;
  what: string;
}

function conversion(currency: string, legalCurrency: string, rate: number | null | undefined, coef: number | null | undefined, what: string): Conversion {
  return { isLegal: currency === legalCurrency, rate: rate ? dec(rate) : null, coef: coef ? dec(coef) : dec(1), what };
}

/** The stored `_leg` figure, else the value itself in the legal currency, else value × rate / coef. */
function legal(value: Dec | number | null | undefined, stored: number | null | undefined, conv: Conversion): Dec {
  if (stored !== null && stored !== undefined) return dec(stored);
  if (conv.isLegal) return dec(value);
  if (!conv.rate) throw new MissingLegalFiguresError(conv.what);
  return roundMoney(dec(value).times(conv.rate).div(conv.coef));
}

function fxRates(currency: string, legalCurrency: string, fx?: number | null, taxFx?: number | null) {
  if (currency === legalCurrency) return [];
  const out: Array<{ rate: number; currency: string; source: string }> = [];
  if (fx) out.push({ rate: fx, currency, source: 'document' });
  if (taxFx && taxFx !== fx) out.push({ rate: taxFx, currency, source: 'document_tax' });
  return out;
}

/**
 * The rate a payment was converted at, as the ledger shows it: `source` says where finance took it
 * from (`payment`: the request, `paid_document`: the paid document's rate, `payment_amount`: the
 * bank's own conversion). Empty in the legal currency; rates of several payout lines are listed once each.
 */
export function paymentFxRates(
  currency: string,
  legalCurrency: string,
  rates: Array<{ fx_rate?: number | null; fx_rate_source?: string | null }>,
): Array<{ rate: number; currency: string; source: string }> {
  if (currency === legalCurrency) return [];
  const out: Array<{ rate: number; currency: string; source: string }> = [];
  for (const r of rates) {
    if (!r.fx_rate) continue;
    const source = r.fx_rate_source ?? 'payment';
    if (!out.some((o) => o.rate === r.fx_rate && o.source === source)) out.push({ rate: r.fx_rate, currency, source });
  }
  return out;
}

/**
 * Realised exchange difference of a payment in the legal currency: what the bank moved
 * (`amountLeg`) less the value it clears the paid document with (`settlementLeg`, at the
 * document's rate). Positive is a gain (663), negative a loss (563); both come back non-negative.
 */
export function fxDifference(amountLeg: Dec, settlementLeg: Dec): { gain: Dec; loss: Dec } {
  const diff = amountLeg.minus(settlementLeg);
  return diff.isNegative() ? { gain: dec(0), loss: diff.negated() } : { gain: diff, loss: dec(0) };
}

// --- the interpreter of the posting map ---------------------------------------------------------

/** One amount of a figure, with the account it goes to when the figure picks it. */
export interface FigurePart {
  account?: string;
  amount: Dec;
  row?: Partial<Omit<DraftRow, 'debit' | 'credit' | 'gl_account_number' | 'role'>>;
}
export type FigureValues = Partial<Record<Figure, FigurePart[]>>;

export interface RowDefaults {
  currency: string | null;
  contact: Json | null;
  paid_record: Json | null;
  payment_reference: string | null;
  description: string | null;
}

function flip(side: Side): Side {
  return side === 'debit' ? 'credit' : 'debit';
}

/**
 * Turns figures into rows by the posting map of `type`. Zero amounts are dropped (except the
 * `tax` row of a document with tax lines, which carries its ledger tax rows); a negative amount
 * goes to the other side. Rows of the same rule and account are merged.
 */
export function postingRows(type: SourceType, figures: FigureValues, defaults: RowDefaults, keepZero: ReadonlySet<string> = new Set()): DraftRow[] {
  const rows: DraftRow[] = [];
  for (const rule of POSTING_MAP[type]) {
    for (const part of figures[rule.figure] ?? []) {
      const account = accountFor(rule, part);
      const amount = roundMoney(part.amount);
      if (amount.isZero() && !keepZero.has(rule.role)) continue;
      const side = amount.isNegative() ? flip(rule.side) : rule.side;
      const abs = amount.abs();
      const mergeable = !part.row;
      const existing = mergeable ? rows.find((r) => r.role === rule.role && r.gl_account_number === account && !r.paid_record && (side === 'debit' ? r.credit.isZero() : r.debit.isZero())) : undefined;
      if (existing) {
        if (side === 'debit') existing.debit = existing.debit.plus(abs);
        else existing.credit = existing.credit.plus(abs);
        continue;
      }
      rows.push({
        role: rule.role,
        gl_account_number: account,
        debit: side === 'debit' ? abs : dec(0),
        credit: side === 'credit' ? abs : dec(0),
        description: defaults.description,
        currency: defaults.currency,
        payment_amount: null,
        payment_reference: defaults.payment_reference,
        contact: defaults.contact,
        paid_record: defaults.paid_record,
        tax_deduction_ratio: null,
        net_deduction_ratio: null,
        taxes: [],
        ...part.row,
      });
    }
  }
  return rows;
}

function accountFor(rule: PostingRule, part: FigurePart): string {
  switch (rule.account.kind) {
    case 'fixed':
      return rule.account.number;
    case 'item_or':
      return part.account ?? rule.account.number;
    case 'counter':
      return part.account ?? ACCOUNTS.suspense;
  }
}

/** Counter account of a payment: the paid document's type, else the named gl_account, else 395. */
export function counterAccount(paidRecord: { type?: string | null } | null | undefined, glAccount: { number?: string | null } | null | undefined): string {
  const byType = paidRecord?.type ? COUNTER_ACCOUNT_BY_PAID_RECORD[paidRecord.type] : undefined;
  return byType ?? (glAccount?.number?.trim() || ACCOUNTS.suspense);
}

export function sums(rows: Array<{ debit: Dec; credit: Dec }>): { debit: Dec; credit: Dec } {
  return rows.reduce((s, r) => ({ debit: s.debit.plus(r.debit), credit: s.credit.plus(r.credit) }), { debit: dec(0), credit: dec(0) });
}

export function assertBalanced(entry: LedgerEntryDraft): void {
  const { debit, credit } = sums(entry.rows);
  if (!debit.eq(credit)) throw new UnbalancedEntryError(debit, credit, `${entry.type} ${entry.source.id} (version ${entry.source.version})`);
}

// --- tax helpers --------------------------------------------------------------------------------

export function isReverseCharge(t: TaxLine): boolean {
  if (t.is_reverse_charge) return true;
  if (t.tax_details && (t.tax_details as Json).reverse_charge === true) return true;
  return /reverse|^rc$|^rc[_-]/i.test(t.rate_type ?? '') || /^rc$|^rc[_-]|reverse/i.test(t.tax_code ?? '');
}

export function supplyKind(t: TaxLine): SupplyKind {
  const d = (t.tax_details as Json | null | undefined)?.supply;
  if (d === 'services' || /service/i.test(t.rate_type ?? '')) return 'services';
  return 'goods';
}

/** The same tax: equal rate, and equal code where both lines name one. */
function sameTax(a: TaxLine, b: TaxLine): boolean {
  return dec(a.tax_rate).eq(b.tax_rate) && (!a.tax_code || !b.tax_code || a.tax_code === b.tax_code);
}

function documentCountry(doc: SalesDocument | PurchaseDocument, opts: PostingOptions): string {
  return (doc.org_country ?? doc.org?.country ?? doc.org?.address?.country ?? opts.orgCountry ?? 'CZ').toUpperCase();
}

/**
 * Net and total of a document in the legal currency, from its stored figures: the subtotal is
 * Σ of the recap's tax_base_leg (plus any untaxed remainder converted), the total is net + tax,
 * unless the document states its own `_leg` totals (which must then agree, or it cannot balance).
 */
function documentLegs(doc: SalesDocument | PurchaseDocument, taxConv: Conversion, taxLeg: Dec, conv: Conversion): { netLeg: Dec; totalLeg: Dec } {
  let netLeg: Dec;
  if (doc.subtotal_amount_leg !== null && doc.subtotal_amount_leg !== undefined) netLeg = dec(doc.subtotal_amount_leg);
  else {
    const baseDoc = doc.taxes.reduce((s, t) => s.plus(t.tax_base), dec(0));
    const baseLeg = doc.taxes.reduce((s, t) => s.plus(legal(t.tax_base, t.tax_base_leg, taxConv)), dec(0));
    const untaxed = dec(doc.subtotal_amount).minus(baseDoc);
    netLeg = baseLeg.plus(untaxed.isZero() ? dec(0) : legal(untaxed, null, conv));
  }
  const totalLeg = optDec(doc.total_amount_leg) ?? netLeg.plus(taxLeg);
  return { netLeg, totalLeg };
}

// --- sales documents ---------------------------------------------------------------------------

function itemAccount(item: { gl_account?: { number?: string | null } | null; item?: { gl_account?: { number?: string | null } | null } | null }): string | undefined {
  return item.gl_account?.number?.trim() || item.item?.gl_account?.number?.trim() || undefined;
}

/** Net (subtotal) by account: items that name a gl_account get their base; the default account the rest. */
function netParts(doc: SalesDocument | PurchaseDocument, netLeg: Dec, conv: Conversion): FigurePart[] {
  const overrides = new Map<string, Dec>();
  for (const item of doc.items) {
    const account = itemAccount(item);
    if (!account) continue;
    const taxed = item.taxes?.[0];
    const base = taxed ? legal(taxed.tax_base, taxed.tax_base_leg, conv) : legal(item.amount, null, conv);
    overrides.set(account, (overrides.get(account) ?? dec(0)).plus(base));
  }
  const overridden = [...overrides.values()].reduce((s, v) => s.plus(v), dec(0));
  return [{ amount: netLeg.minus(overridden) }, ...[...overrides].map(([account, amount]) => ({ account, amount }))];
}

/** A figure an event may leave out, as a decimal or null. */
function optDec(v: DecimalInput | null | undefined): Dec | null {
  return v === null || v === undefined ? null : dec(v);
}

/**
 * The header of a payment's entry (bank transaction, payout): what payments have, with the
 * document-only fields (due and tax dates, deduction ratios, amounts paid and due) empty.
 */
function paymentEntryHeader(
  h: Pick<
    LedgerEntryDraft,
    'type' | 'source' | 'datePosting' | 'no' | 'paymentReference' | 'description' | 'dateIssued' | 'currency' | 'legalCurrency' | 'transactionType' | 'contact' | 'bankAccount' | 'paidRecord' | 'fxRates'
  >,
): Omit<LedgerEntryDraft, 'rows' | 'total'> {
  return {
    ...h,
    entryKind: 'posting',
    vendorDocNo: null,
    creditedDocNo: null,
    dateDue: null,
    dateTaxable: null,
    dateTaxApplied: null,
    precision: 2,
    taxNexus: null,
    taxDeductionRatio: null,
    netDeductionRatio: null,
    amountPaid: null,
    amountDue: null,
  };
}

function baseEntry(doc: SalesDocument | PurchaseDocument, type: SourceType, legalCurrency: string, contact: Json | null): Omit<LedgerEntryDraft, 'rows' | 'total'> {
  return {
    type,
    source: { type, id: doc.id, version: doc.version ?? 1, no: doc.no ?? null },
    entryKind: 'posting',
    datePosting: doc.date_taxable ?? doc.date_issued,
    no: doc.no ?? null,
    vendorDocNo: ((doc as PurchaseDocument).vendor_doc_no as string | null | undefined) ?? null,
    creditedDocNo: doc.credited_doc_no ?? null,
    paymentReference: doc.payment_reference ?? null,
    description: (((doc as PurchaseDocument).description ?? (doc as SalesDocument).notes) as string | null | undefined) ?? null,
    dateIssued: doc.date_issued,
    dateDue: doc.date_due ?? null,
    dateTaxable: doc.date_taxable ?? null,
    dateTaxApplied: doc.date_taxable ?? doc.date_issued,
    currency: doc.currency,
    legalCurrency,
    precision: doc.precision ?? 2,
    transactionType: (doc.type as Json | null | undefined) ?? null,
    contact,
    bankAccount: (doc.bank_account as Json | null | undefined) ?? null,
    taxNexus: (doc.tax_nexus as Json | null | undefined) ?? null,
    paidRecord: null,
    fxRates: fxRates(doc.currency, legalCurrency, doc.fx_rate, doc.tax_fx_rate),
    taxDeductionRatio: null,
    netDeductionRatio: null,
    amountPaid: optDec(doc.amount_paid),
    amountDue: optDec(doc.amount_due),
  };
}

function legalCurrencyOf(doc: { legal_currency?: string | null; taxes?: TaxLine[] }, opts: PostingOptions): string {
  return doc.legal_currency ?? doc.taxes?.find((t) => t.currency_leg)?.currency_leg ?? opts.legalCurrency;
}

function emptyTaxRow(number: string, currency: string): DraftTaxRow {
  return {
    debit: dec(0),
    credit: dec(0),
    gl_account_number: number,
    description: null,
    currency,
    tax_rate: null,
    tax_rate_rc: null,
    is_reverse_charge: false,
    tax_index: null,
    tax_code: null,
    tax_name: null,
    tax_base_in: null,
    tax_base_in_leg: null,
    tax_base_out: null,
    tax_base_out_leg: null,
    tax_amount_in: null,
    tax_amount_in_leg: null,
    tax_amount_claim: null,
    tax_amount_claim_leg: null,
    tax_amount_out: null,
    tax_amount_out_leg: null,
    tax_return_base_in: null,
    tax_return_base_out: null,
    tax_return_amount_claim: null,
    tax_return_amount_out: null,
    tax_control_statement: null,
    tax_eu_sales_report: null,
    tax_deduction_ratio: null,
    net_deduction_ratio: null,
  };
}

/** Hangs the ledger tax rows on the entry's VAT posting; a zero VAT row is kept only when no other exists. */
function attachTaxRows(rows: DraftRow[], taxRows: DraftTaxRow[]): void {
  const isZero = (r: DraftRow) => r.debit.isZero() && r.credit.isZero();
  if (rows.some((r) => TAX_ROLES.has(r.role) && !isZero(r))) {
    for (let i = rows.length - 1; i >= 0; i--) if (TAX_ROLES.has(rows[i].role) && isZero(rows[i])) rows.splice(i, 1);
  }
  if (taxRows.length === 0) return;
  const holder = rows.find((r) => TAX_ROLES.has(r.role)) ?? rows[0];
  holder.taxes.push(...taxRows);
}

/** Sales invoice or credit note → Dr 311 total / Cr 604 net, Cr 343 tax (reversed for a credit note). */
export function ledgerEntryForSalesDocument(type: 'sales_invoice' | 'sales_credit_note', doc: SalesDocument, opts: PostingOptions): LedgerEntryDraft {
  const legalCurrency = legalCurrencyOf(doc, opts);
  const what = `${type} ${doc.id}`;
  const conv = conversion(doc.currency, legalCurrency, doc.fx_rate, doc.currency_coef, what);
  const taxConv = conversion(doc.currency, legalCurrency, doc.tax_fx_rate ?? doc.fx_rate, doc.currency_coef, what);
  const taxLegs = doc.taxes.map((t) => ({ line: t, base: legal(t.tax_base, t.tax_base_leg, taxConv), amount: legal(t.tax_amount, t.tax_amount_leg, taxConv) }));
  const taxLeg = taxLegs.reduce((s, t) => s.plus(t.amount), dec(0));
  const { netLeg, totalLeg } = documentLegs(doc, taxConv, taxLeg, conv);

  const credit = type === 'sales_credit_note';
  const sign = credit ? -1 : 1;
  const contact = (doc.customer as Json | null | undefined) ?? null;
  const orgCountry = documentCountry(doc, opts);
  const partnerCountry = doc.customer?.address?.country ?? doc.billing_address?.country ?? null;
  const taxRows = taxLegs.map(({ line, base, amount }) => {
    const rc = isReverseCharge(line);
    return {
      ...emptyTaxRow(ACCOUNTS.vat, doc.currency),
      debit: credit ? roundMoney(amount) : dec(0),
      credit: credit ? dec(0) : roundMoney(amount),
      description: line.tax_name ?? null,
      tax_rate: dec(line.tax_rate),
      tax_rate_rc: rc ? dec(line.tax_rate) : null,
      is_reverse_charge: rc,
      tax_index: line.tax_index ?? null,
      tax_code: line.tax_code ?? null,
      tax_name: line.tax_name ?? null,
      tax_base_out: dec(line.tax_base).times(sign),
      tax_base_out_leg: base.times(sign),
      tax_amount_out: dec(line.tax_amount).times(sign),
      tax_amount_out_leg: amount.times(sign),
      ...vatReportingFields({
        side: 'sale',
        orgCountry,
        partnerCountry,
        partnerVatNo: doc.customer?.vat_no,
        totalLeg,
        rate: dec(line.tax_rate),
        reverseCharge: rc,
        supply: supplyKind(line),
        controlStatementOverride: credit ? opts.controlStatementOverride : undefined,
      }),
    } satisfies DraftTaxRow;
  });

  const rows = postingRows(
    type,
    { total: [{ amount: totalLeg }], net: netParts(doc, netLeg, conv), tax: [{ amount: taxLeg }] },
    { currency: doc.currency, contact, paid_record: null, payment_reference: doc.payment_reference ?? null, description: null },
    new Set(doc.taxes.length ? ['tax'] : []),
  );
  attachTaxRows(rows, taxRows);
  const entry: LedgerEntryDraft = { ...baseEntry(doc, type, legalCurrency, contact), total: sums(rows).debit, rows };
  assertBalanced(entry);
  return entry;
}

// --- purchase documents ------------------------------------------------------------------------

/** Weighted deduction ratio of the items that carry this tax (1 when none says otherwise). */
function deductionRatio(doc: PurchaseDocument, tax: TaxLine, field: 'tax_deduction_ratio' | 'net_deduction_ratio'): Dec {
  let weight = dec(0);
  let weighted = dec(0);
  for (const item of doc.items) {
    const own = item.taxes?.find((t) => sameTax(t, tax));
    if (!own && doc.taxes.length > 1) continue;
    const base = dec(own?.tax_base ?? item.amount).abs();
    const ratio = dec(item[field] ?? 1);
    weight = weight.plus(base);
    weighted = weighted.plus(base.times(ratio));
  }
  if (weight.isZero()) {
    const ratios = doc.items.map((i) => i[field]).filter((r): r is number => r !== null && r !== undefined);
    return ratios.length ? dec(ratios[0]) : dec(1);
  }
  return weighted.div(weight).toDecimalPlaces(6);
}

/**
 * Vendor bill → Dr 504 net, Dr 343 deductible tax (the rest to 504) / Cr 321 total; a vendor
 * credit the other way round. Reverse-charge lines self-assess: Dr 343 claim (rest 504) / Cr 343 out.
 */
export function ledgerEntryForPurchaseDocument(type: 'purchase_bill' | 'purchase_vendor_credit', doc: PurchaseDocument, opts: PostingOptions): LedgerEntryDraft {
  const legalCurrency = legalCurrencyOf(doc, opts);
  const what = `${type} ${doc.id}`;
  const conv = conversion(doc.currency, legalCurrency, doc.fx_rate ?? doc.tax_fx_rate, doc.currency_coef, what);
  const taxConv = conversion(doc.currency, legalCurrency, doc.tax_fx_rate ?? doc.fx_rate, doc.currency_coef, what);
  const credit = type === 'purchase_vendor_credit';
  const sign = credit ? -1 : 1;

  const lines = doc.taxes.map((line) => {
    const rc = isReverseCharge(line);
    const base = legal(line.tax_base, line.tax_base_leg, taxConv);
    const stated = legal(line.tax_amount, line.tax_amount_leg, taxConv);
    const amount = rc && stated.isZero() ? roundMoney(base.times(line.tax_rate).div(100)) : stated;
    const amountDoc = rc && dec(line.tax_amount).isZero() ? roundMoney(dec(line.tax_base).times(line.tax_rate).div(100)) : dec(line.tax_amount);
    const ratio = deductionRatio(doc, line, 'tax_deduction_ratio');
    const netRatio = deductionRatio(doc, line, 'net_deduction_ratio');
    const claim = roundMoney(amount.times(ratio));
    const claimDoc = roundMoney(amountDoc.times(ratio));
    return { line, rc, base, amount, amountDoc, ratio, netRatio, claim, claimDoc };
  });
  const stdLines = lines.filter((l) => !l.rc);
  const rcLines = lines.filter((l) => l.rc);
  const sum = (xs: Dec[]) => xs.reduce((s, v) => s.plus(v), dec(0));
  const taxLeg = sum(stdLines.map((l) => l.amount));
  const deductible = sum(stdLines.map((l) => l.claim));
  const rcOut = sum(rcLines.map((l) => l.amount));
  const rcClaim = sum(rcLines.map((l) => l.claim));

  const { netLeg, totalLeg } = documentLegs(doc, taxConv, taxLeg, conv);

  const contact = (doc.vendor as Json | null | undefined) ?? null;
  const orgCountry = documentCountry(doc, opts);
  const partnerCountry = doc.vendor?.address?.country ?? null;
  const taxRows = lines.map((l) => {
    const fields = vatReportingFields({
      side: 'purchase',
      orgCountry,
      partnerCountry,
      partnerVatNo: doc.vendor?.vat_no,
      totalLeg,
      rate: dec(l.line.tax_rate),
      reverseCharge: l.rc,
      supply: supplyKind(l.line),
      controlStatementOverride: credit ? opts.controlStatementOverride : undefined,
    });
    const dr = l.claim;
    const cr = l.rc ? l.amount : dec(0);
    return {
      ...emptyTaxRow(ACCOUNTS.vat, doc.currency),
      debit: credit ? cr : dr,
      credit: credit ? dr : cr,
      description: l.line.tax_name ?? null,
      tax_rate: dec(l.line.tax_rate),
      tax_rate_rc: l.rc ? dec(l.line.tax_rate) : null,
      is_reverse_charge: l.rc,
      tax_index: l.line.tax_index ?? null,
      tax_code: l.line.tax_code ?? null,
      tax_name: l.line.tax_name ?? null,
      tax_base_in: dec(l.line.tax_base).times(sign),
      tax_base_in_leg: l.base.times(sign),
      tax_amount_in: l.amountDoc.times(sign),
      tax_amount_in_leg: l.amount.times(sign),
      tax_amount_claim: l.claimDoc.times(sign),
      tax_amount_claim_leg: l.claim.times(sign),
      tax_amount_out: l.rc ? l.amountDoc.times(sign) : null,
      tax_amount_out_leg: l.rc ? l.amount.times(sign) : null,
      tax_deduction_ratio: l.ratio,
      net_deduction_ratio: l.netRatio,
      ...fields,
    } satisfies DraftTaxRow;
  });

  const rows = postingRows(
    type,
    {
      total: [{ amount: totalLeg }],
      net: netParts(doc, netLeg, conv),
      tax_deductible: [{ amount: deductible }],
      tax_non_deductible: [{ amount: taxLeg.minus(deductible) }],
      rc_tax_out: [{ amount: rcOut }],
      rc_tax_claim: [{ amount: rcClaim }],
      rc_tax_non_deductible: [{ amount: rcOut.minus(rcClaim) }],
    },
    { currency: doc.currency, contact, paid_record: null, payment_reference: doc.payment_reference ?? null, description: null },
    new Set(doc.taxes.length ? ['tax'] : []),
  );
  attachTaxRows(rows, taxRows);
  const ratios = lines.map((l) => l.ratio);
  const entry: LedgerEntryDraft = {
    ...baseEntry(doc, type, legalCurrency, contact),
    taxDeductionRatio: ratios.length && ratios.every((r) => r.eq(ratios[0])) ? ratios[0] : null,
    netDeductionRatio: lines.length && lines.every((l) => l.netRatio.eq(lines[0].netRatio)) ? lines[0].netRatio : null,
    total: sums(rows).debit,
    rows,
  };
  assertBalanced(entry);
  return entry;
}

// --- payments ----------------------------------------------------------------------------------

/** Bank transaction → Dr 221 / Cr counter for money in; Dr counter / Cr 221 for money out. */
export function ledgerEntryForBankTransaction(doc: BankTransactionDocument, opts: PostingOptions): LedgerEntryDraft {
  const legalCurrency = doc.legal_currency ?? opts.legalCurrency;
  const conv = conversion(doc.currency, legalCurrency, doc.fx_rate, doc.currency_coef, `bank_transaction ${doc.id}`);
  const amount = legal(doc.amount, doc.amount_leg, conv);
  // the paid document is cleared at its own legal value; events without it clear at the bank's
  const settlement = optDec(doc.settlement_amount_leg) ?? amount;
  const { gain, loss } = fxDifference(amount, settlement);
  const contact = (doc.contact as Json | null | undefined) ?? null;
  const paidRecord = (doc.paid_record as Json | null | undefined) ?? null;
  const fxRow = (description: string) => ({ description, contact, paid_record: paidRecord, payment_reference: doc.payment_reference ?? null });
  const rows = postingRows(
    'bank_transaction',
    {
      amount: [{ amount }],
      fx_gain: [{ amount: gain, row: fxRow('Realised FX gain') }],
      fx_loss: [{ amount: loss, row: fxRow('Realised FX loss') }],
      settlement: [
        {
          account: counterAccount(doc.paid_record, doc.gl_account),
          amount: settlement,
          row: {
            description: doc.description ?? null,
            currency: doc.currency,
            payment_amount: optDec(doc.payment_amount),
            payment_reference: doc.payment_reference ?? null,
            contact,
            paid_record: paidRecord,
          },
        },
      ],
    },
    { currency: doc.currency, contact, paid_record: null, payment_reference: doc.payment_reference ?? null, description: doc.description ?? null },
  );
  const entry: LedgerEntryDraft = {
    ...paymentEntryHeader({
      type: 'bank_transaction',
      source: { type: 'bank_transaction', id: doc.id, version: doc.version ?? 1, no: null },
      datePosting: doc.date_accounting ?? doc.date_transaction,
      no: null,
      paymentReference: doc.payment_reference ?? null,
      description: doc.description ?? null,
      dateIssued: doc.date_transaction,
      currency: doc.currency,
      legalCurrency,
      transactionType: null,
      contact,
      bankAccount: doc.account_number ? { account_number: doc.account_number } : null,
      paidRecord,
      fxRates: paymentFxRates(doc.currency, legalCurrency, [doc]),
    }),
    total: sums(rows).debit,
    rows,
  };
  assertBalanced(entry);
  return entry;
}

/** Payout → Dr 221 total; each line Cr 311 (pays a sales document) or its gl_account (fees, refunds: negative → debit). */
export function ledgerEntryForPayout(doc: PayoutDocument, opts: PostingOptions): LedgerEntryDraft {
  const legalCurrency = doc.legal_currency ?? opts.legalCurrency;
  const conv = conversion(doc.currency, legalCurrency, doc.fx_rate, doc.currency_coef, `payout ${doc.id}`);
  const lines = (doc.lines ?? []).map((l) => {
    const leg = legal(l.amount, l.amount_leg, conv);
    const settle = optDec(l.settlement_amount_leg) ?? leg;
    return { l, leg, settle, ...fxDifference(leg, settle) };
  });
  const totalLeg =
    optDec(doc.total_amount_leg) ?? lines.reduce((s, x) => s.plus(x.leg), dec(0));
  const fxRow = (l: (typeof lines)[number]['l'], description: string) => ({ description, paid_record: (l.paid_record as Json | null | undefined) ?? null });
  const rows = postingRows(
    'payout',
    {
      total: [{ amount: totalLeg }],
      fx_gain: lines.map(({ l, gain }) => ({ amount: gain, row: fxRow(l, 'Realised FX gain') })),
      fx_loss: lines.map(({ l, loss }) => ({ amount: loss, row: fxRow(l, 'Realised FX loss') })),
      lines: lines.map(({ l, settle }) => ({
        account: counterAccount(l.paid_record, l.gl_account),
        amount: settle,
        row: {
          description: l.description ?? null,
          currency: l.currency ?? doc.currency,
          payment_amount: optDec(l.payment_amount),
          paid_record: (l.paid_record as Json | null | undefined) ?? null,
        },
      })),
    },
    { currency: doc.currency, contact: null, paid_record: null, payment_reference: null, description: doc.description ?? null },
  );
  const dates = (doc.lines ?? []).map((l) => l.date_accounting ?? l.date_transaction).filter((d): d is string => !!d).sort();
  const datePosting = doc.date_issued ?? dates[dates.length - 1] ?? opts.fallbackDate;
  if (!datePosting) throw new MissingLegalFiguresError(`payout ${doc.id} has no date`);
  const entry: LedgerEntryDraft = {
    ...paymentEntryHeader({
      type: 'payout',
      source: { type: 'payout', id: doc.id, version: doc.version ?? 1, no: doc.no ?? null },
      datePosting,
      no: doc.no ?? null,
      paymentReference: doc.psp_object_id ?? null,
      description: doc.description ?? null,
      dateIssued: doc.date_issued ?? null,
      currency: doc.currency,
      legalCurrency,
      transactionType: (doc.transaction_type as Json | null | undefined) ?? null,
      contact: null,
      bankAccount: null,
      paidRecord: null,
      fxRates: paymentFxRates(doc.currency, legalCurrency, doc.fx_rate ? [doc] : (doc.lines ?? [])),
    }),
    total: sums(rows).debit,
    rows,
  };
  assertBalanced(entry);
  return entry;
}

/**
 * The reversing entry of a posted one: the same rows with debit and credit swapped, dated like
 * the original so the period it was reported in nets to zero.
 */
export function reversalOf(entry: LedgerEntryDraft): LedgerEntryDraft {
  const swapTax = (t: DraftTaxRow): DraftTaxRow => ({ ...t, debit: t.credit, credit: t.debit });
  return {
    ...entry,
    type: 'reversal',
    entryKind: 'reversal',
    description: `Reversal of ${entry.type} ${entry.no ?? entry.source.id} (version ${entry.source.version})`,
    rows: entry.rows.map((r) => ({ ...r, debit: r.credit, credit: r.debit, taxes: r.taxes.map(swapTax) })),
  };
}
