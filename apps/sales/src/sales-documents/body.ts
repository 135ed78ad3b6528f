import type { CreditNoteRequest, InvoiceRequest, SalesTaxLineRequest } from '@ledgerline/contracts';
import { Dec, toWire } from '@ledgerline/service-kit';
import type { TaxCategory } from '@ledgerline/core/tax-category';
import { recapKey, supplyOf, type DocumentCategories } from '@ledgerline/documents/line-categories';
import { incrementProblem, type ComputedDocument, type ComputedTaxLine, type DecimalLike, type DocumentInput } from '@ledgerline/documents';

/** The request of either sales document. */
export type DocumentRequest = InvoiceRequest | CreditNoteRequest;

/**
 * The increment a document's total is rounded to: its own (null: none), else the organisation's
 * for a document in the legal currency — whole crowns are a Czech habit, not a euro one — when
 * that increment suits the document's precision.
 */
export function roundingIncrementOf(input: DocumentRequest, legalCurrency: string, orgIncrement: unknown): DecimalLike | null {
  if (input.rounding_increment !== undefined) return input.rounding_increment;
  if (typeof orgIncrement !== 'number' || !(orgIncrement > 0) || input.currency.toUpperCase() !== legalCurrency) return null;
  return incrementProblem(new Dec(orgIncrement), input.precision ?? 2) ? null : orgIncrement;
}

/** The arithmetic input of a request: only what the figures depend on (derived figures are ignored). */
export function documentInputOf(input: DocumentRequest, legalCurrency: string, orgIncrement: unknown = null): DocumentInput {
  const taxes = (t: SalesTaxLineRequest[] | null | undefined) =>
    (t ?? []).map((x) => ({ tax_code: x.tax_code ?? null, tax_name: x.tax_name ?? null, tax_rate: x.tax_rate, rate_type: x.rate_type ?? null, tax_index: x.tax_index ?? null }));
  return {
    precision: input.precision ?? 2,
    taxes_included: input.taxes_included ?? false,
    currency: input.currency,
    legal_currency: legalCurrency,
    fx_rate: input.fx_rate ?? null,
    currency_coef: input.currency_coef ?? null,
    tax_fx_rate: input.tax_fx_rate ?? null,
    items: input.items.map((i) => ({ qty: i.qty, rate: i.rate, discount_explicit: i.discount_explicit ?? null, taxes: taxes(i.taxes) })),
    shipping_charges: (input.shipping_charges ?? []).map((s) => ({ amount: s.amount, taxes: taxes(s.taxes) })),
    discounts: (input.discounts ?? []).map((d) => ({
      title: d.title ?? null,
      value: d.value,
      value_type: d.value_type,
      allocation_method: d.allocation_method ?? 'across',
      target_type: d.target_type ?? 'line_item',
    })),
    amount_paid: 0,
    rounding_increment: roundingIncrementOf(input, legalCurrency, orgIncrement),
  };
}

const n = (v: string | null | undefined) => toWire(v);

function taxLineBody(t: ComputedTaxLine, index: number, category: TaxCategory | null, details?: Record<string, unknown> | null) {
  return {
    id: index + 1,
    tax_rate: n(t.tax_rate),
    tax_amount: n(t.tax_amount),
    tax_amount_leg: n(t.tax_amount_leg),
    tax_base: n(t.tax_base),
    tax_base_leg: n(t.tax_base_leg),
    currency_leg: t.currency_leg,
    tax_index: t.tax_index,
    tax_code: t.tax_code,
    tax_name: t.tax_name,
    rate_type: t.rate_type,
    tax_details: details ?? null,
    tax_category: category,
  };
}

export interface BodyContext {
  id: number;
  uid: string;
  no: string;
  counterId: number | null;
  createdAt: Date;
  org: Record<string, unknown> | null;
  /** The fields only this kind of document carries (an invoice's references, a credit note's credited invoice). */
  own: Record<string, unknown>;
  /** The VAT category of every tax line and recap row (`documentCategories`). */
  categories: DocumentCategories;
  /** The organisation's `default_supply`: what an item supplies when neither it nor its catalogue item says. */
  defaultSupply: unknown;
}

/** The document as stored once and answered by GET and carried by events (JSON numbers). */
export function documentBody(input: DocumentRequest, c: ComputedDocument, ctx: BodyContext): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: ctx.id,
    uid: ctx.uid,
    created_at: ctx.createdAt.toISOString(),
    is_locked: false,
    total_amount: n(c.total_amount),
    subtotal_amount: n(c.subtotal_amount),
    tax_amount: n(c.tax_amount),
    rounding_increment: n(c.rounding_increment),
    rounding_amount: n(c.rounding_amount),
    bank_account: input.bank_account ?? null,
    billing_address: input.billing_address ?? null,
    shipping_address: input.shipping_address ?? null,
    counter_id: ctx.counterId,
    currency: c.currency,
    currency_coef: n(c.currency_coef),
    fx_rate: n(c.fx_rate),
    tax_fx_rate: n(c.tax_fx_rate),
    currency_leg: c.currency_leg,
    subtotal_amount_leg: n(c.subtotal_amount_leg),
    tax_amount_leg: n(c.tax_amount_leg),
    rounding_amount_leg: n(c.rounding_amount_leg),
    total_amount_leg: n(c.total_amount_leg),
    customer: input.customer,
    contact_id: input.contact_id ?? null,
    culture: input.culture ?? null,
    document_locale: input.document_locale ?? null,
    template_layout: input.template_layout ?? null,
    date_issued: input.date_issued,
    date_taxable: input.date_taxable ?? input.date_issued,
    date_due: input.date_due ?? null,
    delivery_condition: input.delivery_condition ?? null,
    no: ctx.no,
    notes: input.notes ?? null,
    memo: input.memo ?? null,
    org: ctx.org,
    payment_reference: input.payment_reference ?? null,
    payment_info: input.payment_info ?? null,
    payment_method: input.payment_method ?? null,
    constant_symbol: input.constant_symbol ?? null,
    specific_symbol: input.specific_symbol ?? null,
    ...ctx.own,
    payment_term: input.payment_term ?? null,
    precision: c.precision,
    rate_format: input.rate_format ?? null,
    taxes_included: c.taxes_included,
    tax_nexus: input.tax_nexus ?? null,
    type: input.type ?? null,
    shop_a_object_id: input.shop_a_object_id ?? null,
    items: input.items.map((it, i) => {
      const ci = c.items[i];
      return {
        id: i + 1,
        title: it.title ?? null,
        description: it.description ?? null,
        qty: n(ci.qty),
        rate: n(ci.rate),
        rate_discounted: n(ci.rate_discounted),
        discount_explicit: n(ci.discount_explicit),
        discount_implicit: n(ci.discount_implicit),
        amount: n(ci.amount),
        net_amount: n(ci.net_amount),
        shop_a_line_id: it.shop_a_line_id ?? null,
        psp_object_id: it.psp_object_id ?? null,
        shop_b_line_id: it.shop_b_line_id ?? null,
        eshop_line_id: it.eshop_line_id ?? null,
        sku: it.sku ?? it.item?.sku ?? null,
        item: it.item ?? null,
        variant: it.variant ?? null,
        unit: it.unit ?? null,
        gl_account: it.gl_account ?? null,
        supply: supplyOf(it, ctx.defaultSupply),
        taxes: ci.taxes.map((t, k) => taxLineBody(t, k, ctx.categories.recap.get(recapKey(t)) ?? null, it.taxes?.[k]?.tax_details)),
      };
    }),
    taxes: c.taxes.map((t, k) => taxLineBody(t, k, ctx.categories.recap.get(recapKey(t)) ?? null)),
    shipping_charges: (input.shipping_charges ?? []).map((s, i) => {
      const cs = c.shipping_charges[i];
      return {
        id: i + 1,
        title: s.title ?? null,
        amount: n(cs.amount),
        discount_implicit: n(cs.discount_implicit),
        net_amount: n(cs.net_amount),
        shop_a_line_id: s.shop_a_line_id ?? null,
        shop_b_line_id: s.shop_b_line_id ?? null,
        eshop_line_id: s.eshop_line_id ?? null,
        taxes: cs.taxes.map((t, k) => taxLineBody(t, k, ctx.categories.recap.get(recapKey(t)) ?? null, s.taxes?.[k]?.tax_details)),
      };
    }),
    discounts: c.discounts.map((d) => ({
      title: d.title,
      amount: n(d.amount),
      value: n(d.value),
      value_type: d.value_type,
      allocation_method: d.allocation_method,
      target_type: d.target_type,
    })),
    urls: [],
    // Last, in this order (VIEW_OVERLAY): what changes after posting (payments, edits, time), so a
    // view is the stored text up to them and their values now (`viewTextOfRow`, decision 266).
    amount_paid: n(c.amount_paid),
    amount_due: n(c.amount_due),
    payment_status: c.payment_status,
    edited_at: null,
    overdue_days: 0,
  };
  return body;
}

