import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Dec, roundMoney } from '@ledgerline/core/money';
import { computeDocument } from './document-math.js';
import { DocumentRuleError } from './errors.js';
import type { ComputedDocument, ComputedTaxLine, DiscountInput, DocumentInput, ItemInput, ShippingChargeInput, TaxInput } from './types.js';

type Decimal = InstanceType<typeof Dec>;
const D = (v: string) => new Dec(v);
const sum = (xs: string[]) => xs.reduce((a, x) => a.plus(x), new Dec(0));
const eq = (a: string | Decimal, b: string | Decimal) => expect(new Dec(a).toFixed()).toBe(new Dec(b).toFixed());

const TAXES: TaxInput[] = [
  { tax_code: 'S21', tax_name: 'VAT 21', tax_rate: '21' },
  { tax_code: 'S12', tax_name: 'VAT 12', tax_rate: 12 },
  { tax_code: 'Z', tax_name: 'zero', tax_rate: '0' },
  { tax_code: 'SK23', tax_name: 'VAT 23', tax_rate: 23 },
  { tax_code: 'FR196', tax_name: 'TVA 19.6', tax_rate: '19.6' },
  { tax_code: 'NY', tax_name: 'sales tax', tax_rate: '8.875' },
];

/** A decimal string with up to `maxScale` decimals, as a string or a JS number (inputs may be either). */
const decimal = (min: number, max: number, maxScale: number) =>
  fc
    .tuple(fc.integer({ min, max }), fc.integer({ min: 0, max: maxScale }), fc.boolean())
    .map(([n, scale, asNumber]) => {
      const s = new Dec(n).div(new Dec(10).pow(scale)).toFixed();
      return asNumber ? Number(s) : s;
    });

interface GenOptions {
  signed?: boolean;
  multiTax?: boolean;
  discounts?: boolean;
  shipping?: boolean;
}

const taxesArb = (multi: boolean) =>
  multi ? fc.subarray(TAXES, { maxLength: 2 }) : fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TAXES).map((t) => [t]) }, { weight: 1, arbitrary: fc.constant([] as TaxInput[]) });

const itemArb = (o: GenOptions): fc.Arbitrary<ItemInput> =>
  fc.record({
    qty: decimal(o.signed ? -50_000 : 0, 50_000, 3),
    // bounded so that 8 lines at the largest fx_rate stay within AMOUNT_LIMIT (larger documents are refused, tested apart)
    rate: decimal(0, 100_000, 4),
    discount_explicit: fc.oneof(fc.constant(undefined), decimal(0, 500, 2)),
    taxes: taxesArb(!!o.multiTax),
  });

const shippingArb = (o: GenOptions): fc.Arbitrary<ShippingChargeInput> =>
  fc.record({ amount: decimal(o.signed ? -5_000 : 0, 5_000, 3), taxes: taxesArb(!!o.multiTax) });

const discountArb: fc.Arbitrary<DiscountInput> = fc
  .record({
    value_type: fc.constantFrom('percentage' as const, 'fixed_amount' as const),
    allocation_method: fc.constantFrom('across' as const, 'each' as const),
    target_type: fc.oneof({ weight: 3, arbitrary: fc.constant('line_item' as const) }, { weight: 1, arbitrary: fc.constant('shipping_line' as const) }),
    pct: decimal(0, 10_000, 2),
    fixed: decimal(0, 3_000, 2),
  })
  .map(({ pct, fixed, ...d }) => ({ ...d, value: d.value_type === 'percentage' ? new Dec(pct).div(100).toFixed() : fixed }));

const documentArb = (o: GenOptions = {}): fc.Arbitrary<DocumentInput> =>
  fc
    .record({
      precision: fc.integer({ min: 0, max: 4 }),
      taxes_included: fc.boolean(),
      foreign: fc.boolean(),
      fx_rate: decimal(1, 100, 4).filter((x) => new Dec(x).gt(0)),
      tax_fx: fc.oneof(fc.constant(undefined), decimal(1, 100, 4)),
      currency_coef: fc.constantFrom(undefined, 1, 100, '1000'),
      items: fc.array(itemArb(o), { maxLength: 8 }),
      shipping_charges: o.shipping === false ? fc.constant<ShippingChargeInput[]>([]) : fc.array(shippingArb(o), { maxLength: 2 }),
      discounts: o.discounts === false ? fc.constant<DiscountInput[]>([]) : fc.array(discountArb, { maxLength: 2 }),
      amount_paid: decimal(o.signed ? -100_000 : 0, 100_000, 2),
    })
    .map(({ foreign, tax_fx, ...d }) => ({
      ...d,
      currency: foreign ? 'EUR' : 'CZK',
      legal_currency: 'CZK',
      tax_fx_rate: tax_fx,
    }));

/** computeDocument, or undefined when the generated discounts cannot be granted (a 422, checked). */
function compute(input: DocumentInput): ComputedDocument | undefined {
  try {
    return computeDocument(input);
  } catch (e) {
    expect(e).toBeInstanceOf(DocumentRuleError);
    expect((e as DocumentRuleError).code).toMatch(/^discount_(exceeds_amount|not_allocatable)$/);
    return undefined;
  }
}

const recapKey = (t: ComputedTaxLine) => `${t.tax_code}|${new Dec(t.tax_rate).toFixed()}`;
const lineRows = (r: ComputedDocument) => [...r.items, ...r.shipping_charges];

function checkScale(r: ComputedDocument) {
  const re = r.precision === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+\\.\\d{${r.precision}}$`);
  const amounts = [
    r.subtotal_amount,
    r.tax_amount,
    r.total_amount,
    r.amount_paid,
    r.amount_due,
    r.subtotal_amount_leg,
    r.tax_amount_leg,
    r.total_amount_leg,
    ...r.taxes.flatMap((t) => [t.tax_base, t.tax_amount, t.tax_base_leg, t.tax_amount_leg]),
    ...lineRows(r).flatMap((l) => [l.amount, l.amount_before_discount, l.discount_implicit, l.net_amount]),
    ...lineRows(r).flatMap((l) => l.taxes.flatMap((t) => [t.tax_base, t.tax_amount, t.tax_base_leg, t.tax_amount_leg])),
    ...r.discounts.flatMap((d) => [d.amount, ...d.allocations]),
  ];
  for (const a of amounts) expect(a).toMatch(re);
}

describe('computeDocument properties', () => {
  it('totals reconcile to the cent in every mode (incl. several taxes per line, negative lines, discounts)', () => {
    fc.assert(
      fc.property(documentArb({ signed: true, multiTax: true }), (input) => {
        const r = compute(input);
        if (!r) return;
        checkScale(r);
        eq(r.tax_amount, sum(r.taxes.map((t) => t.tax_amount)));
        eq(r.total_amount, D(r.subtotal_amount).plus(r.tax_amount));
        eq(r.amount_due, D(r.total_amount).minus(r.amount_paid));
        eq(r.tax_amount_leg, sum(r.taxes.map((t) => t.tax_amount_leg)));
        eq(r.total_amount_leg, D(r.subtotal_amount_leg).plus(r.tax_amount_leg));
        for (const l of lineRows(r)) eq(l.amount, D(l.amount_before_discount).minus(l.discount_implicit));
        if (r.taxes_included) eq(r.total_amount, sum(lineRows(r).map((l) => l.amount)));
        else eq(r.subtotal_amount, sum(lineRows(r).map((l) => l.amount)));
      }),
      { numRuns: 400 },
    );
  });

  it('taxes excluded: recap base = Σ line bases per (code, rate), tax = round(base × rate / 100) on the sum', () => {
    fc.assert(
      fc.property(documentArb(), (input) => {
        const r = compute({ ...input, taxes_included: false });
        if (!r) return;
        const bases = new Map<string, Decimal>();
        for (const l of lineRows(r)) for (const t of l.taxes) bases.set(recapKey(t), (bases.get(recapKey(t)) ?? new Dec(0)).plus(t.tax_base));
        expect(r.taxes.map(recapKey).sort()).toEqual([...bases.keys()].sort());
        for (const row of r.taxes) {
          eq(row.tax_base, bases.get(recapKey(row))!);
          eq(row.tax_amount, roundMoney(D(row.tax_base).times(row.tax_rate).div(100), r.precision));
        }
        const untaxed = sum(lineRows(r).filter((l) => l.taxes.length === 0).map((l) => l.amount));
        eq(r.subtotal_amount, sum(r.taxes.map((t) => t.tax_base)).plus(untaxed));
      }),
      { numRuns: 400 },
    );
  });

  it('taxes included: per rate base + tax = Σ gross exactly, tax = round(gross × rate / (100 + rate)); total = Σ gross', () => {
    fc.assert(
      fc.property(documentArb({ signed: true }), (input) => {
        const r = compute({ ...input, taxes_included: true });
        if (!r) return;
        const gross = new Map<string, Decimal>();
        for (const l of lineRows(r)) for (const t of l.taxes) gross.set(recapKey(t), (gross.get(recapKey(t)) ?? new Dec(0)).plus(l.amount));
        for (const row of r.taxes) {
          const g = gross.get(recapKey(row))!;
          eq(D(row.tax_base).plus(row.tax_amount), g);
          eq(row.tax_amount, roundMoney(g.times(row.tax_rate).div(D(row.tax_rate).plus(100)), r.precision));
        }
        eq(r.total_amount, sum(lineRows(r).map((l) => l.amount)));
        for (const l of lineRows(r)) eq(l.net_amount, sum([l.amount]).minus(sum(l.taxes.map((t) => t.tax_amount))));
      }),
      { numRuns: 400 },
    );
  });

  it('gross/net round trip: a taxes-included document of the excluded totals gives the same figures', () => {
    fc.assert(
      fc.property(documentArb({ discounts: false }), (input) => {
        const net = compute({ ...input, taxes_included: false })!;
        const lines: ItemInput[] = net.taxes.map((row) => ({
          qty: 1,
          rate: D(row.tax_base).plus(row.tax_amount).toFixed(),
          taxes: [{ tax_code: row.tax_code, tax_rate: row.tax_rate }],
        }));
        for (const l of lineRows(net)) if (l.taxes.length === 0) lines.push({ qty: 1, rate: l.amount, taxes: [] });
        const gross = computeDocument({ ...input, taxes_included: true, items: lines, shipping_charges: [] });
        expect(gross.subtotal_amount).toBe(net.subtotal_amount);
        expect(gross.tax_amount).toBe(net.tax_amount);
        expect(gross.total_amount).toBe(net.total_amount);
        expect(gross.taxes.map((t) => [t.tax_code, t.tax_base, t.tax_amount])).toEqual(net.taxes.map((t) => [t.tax_code, t.tax_base, t.tax_amount]));
      }),
      { numRuns: 300 },
    );
  });

  it('document discounts: allocations sum exactly to the granted amount and to each line’s discount_implicit', () => {
    fc.assert(
      fc.property(documentArb({ signed: true }), (input) => {
        const r = compute(input);
        if (!r) return;
        const implicit = { line_item: r.items.map(() => new Dec(0)), shipping_line: r.shipping_charges.map(() => new Dec(0)) };
        for (const d of r.discounts) {
          eq(d.amount, sum(d.allocations));
          expect(d.allocations).toHaveLength(implicit[d.target_type].length);
          d.allocations.forEach((a, i) => (implicit[d.target_type][i] = implicit[d.target_type][i].plus(a)));
        }
        r.items.forEach((it, i) => eq(it.discount_implicit, implicit.line_item[i]));
        r.shipping_charges.forEach((s, i) => eq(s.discount_implicit, implicit.shipping_line[i]));
      }),
      { numRuns: 400 },
    );
  });

  it('a single discount grants exactly what its kind promises', () => {
    fc.assert(
      fc.property(documentArb(), discountArb, (input, discount) => {
        const r = compute({ ...input, discounts: [discount] });
        if (!r) return;
        const d = r.discounts[0];
        const lines = d.target_type === 'line_item' ? r.items : r.shipping_charges;
        const before = lines.map((l) => D(l.amount_before_discount));
        const total = before.reduce((a, b) => a.plus(b), new Dec(0));
        const value = D(discount.value as string);
        const sign = total.lt(0) ? -1 : 1;
        if (d.value_type === 'fixed_amount' && d.allocation_method === 'across') eq(d.amount, roundMoney(value, r.precision).times(sign));
        if (d.value_type === 'percentage' && d.allocation_method === 'across') eq(d.amount, roundMoney(total.times(value).div(100), r.precision));
        if (d.value_type === 'percentage' && d.allocation_method === 'each')
          d.allocations.forEach((a, i) => eq(a, roundMoney(before[i].times(value).div(100), r.precision)));
        if (d.value_type === 'fixed_amount' && d.allocation_method === 'each')
          d.allocations.forEach((a, i) => eq(a, Dec.min(roundMoney(value, r.precision), before[i].abs()).times(before[i].lt(0) ? -1 : 1)));
        // A discount never takes a line past zero (lines all of one sign).
        if (before.every((b) => b.gte(0))) d.allocations.forEach((a, i) => expect(D(a).gte(0) && D(a).lte(before[i])).toBe(true));
      }),
      { numRuns: 400 },
    );
  });

  it('legal-currency figures reconcile: rows rounded each, totals their sums', () => {
    fc.assert(
      fc.property(documentArb({ signed: true }), fc.boolean(), (input, sameTaxRate) => {
        const r = compute({ ...input, tax_fx_rate: sameTaxRate ? undefined : input.tax_fx_rate });
        if (!r) return;
        const fx = D(r.fx_rate).div(r.currency_coef);
        const taxFx = D(r.tax_fx_rate).div(r.currency_coef);
        const leg = (v: string, rate: Decimal) => roundMoney(D(v).times(rate), r.precision);
        for (const row of [...r.taxes, ...lineRows(r).flatMap((l) => l.taxes)]) {
          eq(row.tax_base_leg, leg(row.tax_base, taxFx));
          eq(row.tax_amount_leg, leg(row.tax_amount, taxFx));
          expect(row.currency_leg).toBe('CZK');
        }
        eq(r.total_amount_leg, D(r.subtotal_amount_leg).plus(r.tax_amount_leg));
        if (r.fx_rate === r.tax_fx_rate) {
          // one tax per line: subtotal_leg = Σ recap base_leg + the untaxed lines converted at once
          const untaxed = sum(lineRows(r).filter((l) => l.taxes.length === 0).map((l) => l.amount));
          eq(r.subtotal_amount_leg, sum(r.taxes.map((t) => t.tax_base_leg)).plus(leg(untaxed.toFixed(), fx)));
        }
        if (input.currency === input.legal_currency) {
          expect(r.subtotal_amount_leg).toBe(r.subtotal_amount);
          expect(r.total_amount_leg).toBe(r.total_amount);
        }
        // Within rounding of converting the document totals at once.
        const unit = new Dec(10).pow(-r.precision);
        const slack = unit.times(r.taxes.length + 1);
        expect(D(r.tax_amount_leg).minus(D(r.tax_amount).times(taxFx)).abs().lte(slack)).toBe(true);
        expect(D(r.subtotal_amount_leg).minus(D(r.subtotal_amount).times(fx)).abs().lte(slack)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('totals do not depend on line order', () => {
    const arb = documentArb({ signed: true, multiTax: true }).chain((input) =>
      fc.tuple(
        fc.constant(input),
        fc.shuffledSubarray([...input.items!], { minLength: input.items!.length }),
        fc.shuffledSubarray([...input.shipping_charges!], { minLength: input.shipping_charges!.length }),
      ),
    );
    fc.assert(
      fc.property(arb, ([input, items, shipping]) => {
        const a = compute(input);
        const b = compute({ ...input, items, shipping_charges: shipping });
        expect(a === undefined).toBe(b === undefined);
        if (!a || !b) return;
        const totals = (r: ComputedDocument) => ({
          subtotal: r.subtotal_amount,
          tax: r.tax_amount,
          total: r.total_amount,
          due: r.amount_due,
          legs: [r.subtotal_amount_leg, r.tax_amount_leg, r.total_amount_leg],
          recap: r.taxes.map((t) => [t.tax_code, t.tax_rate, t.tax_base, t.tax_amount, t.tax_base_leg, t.tax_amount_leg]),
          discounts: r.discounts.map((d) => d.amount),
        });
        expect(totals(b)).toEqual(totals(a));
      }),
      { numRuns: 400 },
    );
  });

  it('totals do not depend on line order, also when equal lines tie for the rounding remainder', () => {
    const pool = fc.constantFrom<ItemInput>(
      { qty: 1, rate: 100, taxes: [TAXES[0]] },
      { qty: 1, rate: 100, taxes: [TAXES[1]] },
      { qty: 2, rate: 50, taxes: [TAXES[3]] },
      { qty: 1, rate: '0.07', taxes: [TAXES[0]] },
      { qty: 1, rate: '0.07', taxes: [TAXES[5]] },
      { qty: 1, rate: '33.33', taxes: [] },
    );
    const arb = fc
      .record({
        items: fc.array(pool, { minLength: 2, maxLength: 7 }),
        discounts: fc.array(discountArb.map((d) => ({ ...d, target_type: 'line_item' as const })), { minLength: 1, maxLength: 2 }),
        taxes_included: fc.boolean(),
        precision: fc.integer({ min: 0, max: 4 }),
      })
      .chain((d) => fc.tuple(fc.constant(d), fc.shuffledSubarray(d.items, { minLength: d.items.length })));
    fc.assert(
      fc.property(arb, ([d, shuffled]) => {
        const base = { currency: 'EUR', legal_currency: 'CZK', fx_rate: '24.365', ...d };
        const a = compute(base);
        const b = compute({ ...base, items: shuffled });
        expect(a === undefined).toBe(b === undefined);
        if (!a || !b) return;
        expect([b.subtotal_amount, b.total_amount, b.total_amount_leg]).toEqual([a.subtotal_amount, a.total_amount, a.total_amount_leg]);
        expect(b.taxes).toEqual(a.taxes);
      }),
      { numRuns: 400 },
    );
  });

  it('negating every quantity, shipping amount and payment negates every figure', () => {
    fc.assert(
      fc.property(documentArb({ signed: true, multiTax: true }), (input) => {
        const neg = (v: unknown) => new Dec(v as string).negated().toFixed();
        const a = compute(input);
        const b = compute({
          ...input,
          items: input.items!.map((it) => ({ ...it, qty: neg(it.qty), discount_explicit: it.discount_explicit === undefined ? undefined : neg(it.discount_explicit) })),
          shipping_charges: input.shipping_charges!.map((s) => ({ ...s, amount: neg(s.amount) })),
          amount_paid: neg(input.amount_paid),
        });
        expect(a === undefined).toBe(b === undefined);
        if (!a || !b) return;
        const n = (s: string) => new Dec(s).negated().toFixed(a.precision);
        expect(b.total_amount).toBe(n(a.total_amount));
        expect(b.subtotal_amount).toBe(n(a.subtotal_amount));
        expect(b.taxes.map((t) => t.tax_amount)).toEqual(a.taxes.map((t) => n(t.tax_amount)));
        expect(b.total_amount_leg).toBe(n(a.total_amount_leg));
        expect(b.payment_status).toBe(a.payment_status);
      }),
      { numRuns: 300 },
    );
  });
});
