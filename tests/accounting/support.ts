import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import Decimal from 'decimal.js';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { buildEnvelope } from '@ledgerline/service-kit';
import { parseEventData, SUBJECTS, type Subject } from '@ledgerline/contracts';
import { NATS_URL, startStack, type Stack } from '../support/stack.js';

/*
 * Realistic stored documents, as the producing services put them on the bus, and a publisher
 * that sends them through JetStream the way the outbox relay does (Nats-Msg-Id = event id).
 */

const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
const r2 = (v: Decimal.Value) => new D(v).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
const num = (v: Decimal.Value) => new D(v).toNumber();

export interface LineSpec {
  base: Decimal.Value;
  rate: number;
  tax_deduction_ratio?: number;
  reverse_charge?: boolean;
  gl_account?: string;
}

export interface DocSpec {
  id: number;
  no?: string;
  date: string;
  currency?: string;
  fx_rate?: number;
  lines: LineSpec[];
  partner?: { name?: string; vat_no?: string | null; country?: string };
  credited_doc_id?: number | null;
  credited_doc_no?: string | null;
}

function taxFigures(spec: DocSpec) {
  const fx = new D(spec.fx_rate ?? 1);
  const currency = spec.currency ?? 'CZK';
  const legal = (v: Decimal) => (currency === 'CZK' ? v : r2(v.times(fx)));
  const byRate = new Map<string, { rate: number; base: Decimal; rc: boolean }>();
  for (const l of spec.lines) {
    const key = `${l.rate}|${l.reverse_charge ? 'rc' : ''}`;
    const cur = byRate.get(key) ?? { rate: l.rate, base: new D(0), rc: !!l.reverse_charge };
    cur.base = cur.base.plus(l.base);
    byRate.set(key, cur);
  }
  const taxes = [...byRate.values()].map((t, i) => {
    const amount = t.rc ? new D(0) : r2(t.base.times(t.rate).div(100));
    return {
      id: i + 1,
      tax_index: i,
      tax_rate: t.rate,
      tax_base: num(t.base),
      tax_amount: num(amount),
      tax_base_leg: num(legal(t.base)),
      tax_amount_leg: num(legal(amount)),
      currency_leg: 'CZK',
      tax_code: t.rc ? 'RC' : `VAT${t.rate}`,
      tax_name: t.rc ? `Reverse charge ${t.rate} %` : `VAT ${t.rate} %`,
      rate_type: t.rc ? 'reverse_charge' : t.rate >= 20 ? 'standard' : 'reduced',
    };
  });
  const subtotal = spec.lines.reduce((s, l) => s.plus(l.base), new D(0));
  const tax = taxes.reduce((s, t) => s.plus(t.tax_amount), new D(0));
  return { taxes, subtotal, total: subtotal.plus(tax) };
}

const contact = (spec: DocSpec) => ({
  id: 1000 + spec.id,
  business_name: spec.partner?.name ?? 'Partner s.r.o.',
  display_name: spec.partner?.name ?? 'Partner s.r.o.',
  vat_no: spec.partner?.vat_no === undefined ? 'CZ12345678' : spec.partner.vat_no,
  reg_no: '12345678',
  address: { country: spec.partner?.country ?? 'CZ', city: 'Praha' },
});

function salesDocument(spec: DocSpec, prefix: string) {
  const { taxes, subtotal, total } = taxFigures(spec);
  return {
    id: spec.id,
    uid: randomUUID(),
    created_at: `${spec.date}T10:00:00Z`,
    is_locked: false,
    total_amount: num(total),
    subtotal_amount: num(subtotal),
    amount_paid: 0,
    amount_due: num(total),
    customer: contact(spec),
    currency: spec.currency ?? 'CZK',
    fx_rate: spec.fx_rate ?? 1,
    currency_coef: 1,
    tax_fx_rate: spec.fx_rate ?? 1,
    date_issued: spec.date,
    date_taxable: spec.date,
    date_due: spec.date,
    no: spec.no ?? `${prefix}${spec.id}`,
    precision: 2,
    taxes_included: false,
    payment_status: 'unpaid',
    items: spec.lines.map((l, i) => ({
      id: i + 1,
      title: `Item ${i + 1}`,
      qty: 1,
      rate: num(l.base),
      amount: num(l.base),
      taxes: [{ tax_rate: l.rate, tax_base: num(l.base), tax_amount: num(r2(new D(l.base).times(l.rate).div(100))) }],
    })),
    taxes,
    shipping_charges: [],
    discounts: [],
    ...(spec.credited_doc_id || spec.credited_doc_no ? { credited_doc_id: spec.credited_doc_id ?? null, credited_doc_no: spec.credited_doc_no ?? null } : {}),
  };
}

export const invoice = (spec: DocSpec) => salesDocument(spec, 'INV');
export const creditNote = (spec: DocSpec) => salesDocument(spec, 'CN');

function purchaseDocument(spec: DocSpec, prefix: string) {
  const { taxes, subtotal, total } = taxFigures(spec);
  return {
    id: spec.id,
    uid: randomUUID(),
    created_at: `${spec.date}T10:00:00Z`,
    is_locked: false,
    total_amount: num(total),
    subtotal_amount: num(subtotal),
    amount_paid: 0,
    amount_due: num(total),
    currency: spec.currency ?? 'CZK',
    tax_fx_rate: spec.fx_rate ?? 1,
    vendor: contact(spec),
    date_issued: spec.date,
    date_taxable: spec.date,
    no: spec.no ?? `${prefix}${spec.id}`,
    vendor_doc_no: `V-${spec.id}`,
    precision: 2,
    taxes_included: false,
    type: { id: 1, name: 'goods' },
    payment_status: 'unpaid',
    items: spec.lines.map((l, i) => ({
      id: i + 1,
      description: `Item ${i + 1}`,
      qty: 1,
      rate: num(l.base),
      amount: num(l.base),
      tax_deduction_ratio: l.tax_deduction_ratio ?? 1,
      taxes: [{ tax_rate: l.rate, tax_base: num(l.base), tax_amount: l.reverse_charge ? 0 : num(r2(new D(l.base).times(l.rate).div(100))), tax_code: l.reverse_charge ? 'RC' : `VAT${l.rate}` }],
      ...(l.gl_account ? { gl_account: { number: l.gl_account } } : {}),
    })),
    taxes,
    ...(spec.credited_doc_id || spec.credited_doc_no ? { credited_doc_id: spec.credited_doc_id ?? null, credited_doc_no: spec.credited_doc_no ?? null } : {}),
  };
}

export const bill = (spec: DocSpec) => purchaseDocument(spec, 'BILL');
export const vendorCredit = (spec: DocSpec) => purchaseDocument(spec, 'VC');

export function bankTransaction(spec: {
  id: number;
  amount: number;
  date: string;
  paid?: { type: 'sales_invoice' | 'sales_credit_note' | 'purchase_bill' | 'purchase_vendor_credit'; id: number; no?: string };
  gl_account?: string;
  description?: string;
}) {
  return {
    id: spec.id,
    account_number: '123456789/0100',
    amount: spec.amount,
    currency: 'CZK',
    date_transaction: spec.date,
    date_accounting: spec.date,
    description: spec.description ?? `Payment ${spec.id}`,
    payment_reference: String(spec.id),
    ...(spec.paid ? { paid_record: { id: spec.paid.id, no: spec.paid.no ?? null, type: spec.paid.type } } : {}),
    ...(spec.gl_account ? { gl_account: { number: spec.gl_account } } : {}),
  };
}

export function payout(spec: {
  id: number;
  version: number;
  date: string;
  lines: Array<{ amount: number; paid?: { type: 'sales_invoice'; id: number }; gl_account?: string; description?: string }>;
}) {
  const total = spec.lines.reduce((s, l) => s.plus(l.amount), new D(0));
  return {
    id: spec.id,
    uid: randomUUID(),
    created_at: `${spec.date}T10:00:00Z`,
    is_locked: false,
    currency: 'CZK',
    date_issued: spec.date,
    total_amount: num(total),
    no: `PO${spec.id}`,
    psp_object_id: `po_${spec.id}`,
    version: spec.version,
    replaces_version: spec.version > 1 ? spec.version - 1 : null,
    lines: spec.lines.map((l, i) => ({
      id: i + 1,
      amount: l.amount,
      currency: 'CZK',
      date_accounting: spec.date,
      description: l.description ?? null,
      ...(l.paid ? { paid_record: { id: l.paid.id, type: l.paid.type } } : {}),
      ...(l.gl_account ? { gl_account: { number: l.gl_account } } : {}),
    })),
  };
}

export interface Publisher {
  /** Publishes one event (validated against its contract schema first); returns the event id. */
  publish: (subject: Subject, data: unknown, opts?: { id?: string; msgId?: string; orgId?: number; validate?: boolean }) => Promise<string>;
  close: () => Promise<void>;
}

export async function publisher(stack: Stack, defaultOrgId = 1): Promise<Publisher> {
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  const js: JetStreamClient = jetstream(nc);
  return {
    publish: async (subject, data, opts = {}) => {
      if (opts.validate !== false) parseEventData(subject, data);
      const source = subject.split('.')[0];
      const env = buildEnvelope(source, { subject, data, orgId: opts.orgId ?? defaultOrgId, resource: String((data as { id?: number }).id ?? ''), id: opts.id });
      await js.publish(`${stack.env.NATS_SUBJECT_PREFIX}${subject}.${opts.orgId ?? defaultOrgId}`, JSON.stringify(env), { msgID: opts.msgId ?? env.id });
      return env.id;
    },
    close: async () => {
      await nc.drain();
    },
  };
}

export { SUBJECTS };

/** The test file's stack of the accounting service alone and a publisher into it: started before the file's tests, closed after them. */
export function accountingOnly(): { readonly stack: Stack; readonly bus: Publisher } {
  const file = {} as { stack: Stack; bus: Publisher };
  beforeAll(async () => {
    file.stack = await startStack({ services: ['accounting'] });
    file.bus = await publisher(file.stack);
  });
  afterAll(async () => {
    await file.bus?.close();
    await file.stack?.close();
  });
  return file;
}
