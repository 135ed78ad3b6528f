import { describe, expect, it } from 'vitest';
import { invoiceRequestSchema, type InvoiceRequest } from '@ledgerline/contracts';
import { computeDocument } from '@ledgerline/documents';
import { documentBody, documentInputOf } from './body.js';
import { VIEW_OVERLAY, documentView, overdueDays, overlayTailAt, viewOfRow, viewTextOfRow, type SalesViewRow } from './view.js';
import { issuerSnapshot } from './issuer.js';
import { refuseDueBeforeIssue } from './dates.js';
import { ValidationError } from '@ledgerline/service-kit';
import { INVOICES } from '../invoices/invoice-kind.js';
import { invoiceSchema } from '@ledgerline/contracts';
import type { SalesDocument } from '../db/entities.js';
import { documentCategories, documentParties } from '@ledgerline/documents/line-categories';

const VAT21 = { tax_code: 'S21', tax_rate: 21 };
const request = invoiceRequestSchema.parse({
  customer: { id: 1, business_name: 'Acme' },
  currency: 'EUR',
  fx_rate: 25,
  date_issued: '2026-11-20',
  date_due: '2026-11-30',
  total_amount: 1, // derived: ignored
  items: [{ qty: 2, rate: 100, amount: 5, taxes: [{ ...VAT21, tax_amount: 99, tax_details: { note: 'x' } }] }],
  discounts: [{ value: 10, value_type: 'percentage' }],
}) as InvoiceRequest;

describe('documentInputOf', () => {
  it('takes only what the figures depend on and defaults discount allocation', () => {
    const input = documentInputOf(request, 'CZK');
    expect(input).toMatchObject({ precision: 2, taxes_included: false, currency: 'EUR', legal_currency: 'CZK', fx_rate: 25, amount_paid: 0 });
    expect(input.items![0]).toEqual({ qty: 2, rate: 100, discount_explicit: null, taxes: [{ tax_code: 'S21', tax_name: null, tax_rate: 21, rate_type: null, tax_index: null }] });
    expect(input.discounts![0]).toMatchObject({ allocation_method: 'across', target_type: 'line_item' });
  });
});

describe('documentBody', () => {
  const computed = computeDocument(documentInputOf(request, 'CZK'));
  const body = documentBody(request, computed, {
    id: 7,
    uid: '6f1c1a3e-8a3b-4b8e-9d44-1f0b7c0e2a11',
    no: 'INV202600007',
    counterId: 3,
    createdAt: new Date('2026-11-20T10:00:00Z'),
    org: { name: 'Alpha' },
    own: INVOICES.ownFields(request, null, {}),
    categories: documentCategories(request, documentParties(request.customer, null, 'CZ')),
    defaultSupply: 'services',
  });

  it('stores the computed figures as JSON numbers, never the client figures', () => {
    expect(body).toMatchObject({ subtotal_amount: 180, total_amount: 217.8, amount_due: 217.8, total_amount_leg: 5445, fx_rate: 25, currency_leg: 'CZK' });
    expect((body.items as any[])[0]).toMatchObject({ id: 1, amount: 180, discount_implicit: 20, rate_discounted: 90 });
    expect((body.items as any[])[0].taxes[0]).toMatchObject({ tax_amount: 37.8, tax_base_leg: 4500, tax_details: { note: 'x' }, tax_category: 'S' });
    // what the line supplies: it says nothing, so the organisation's default
    expect((body.items as any[])[0].supply).toBe('services');
    expect((body.taxes as any[])[0]).toMatchObject({ tax_code: 'S21', tax_category: 'S' });
    expect(body.date_taxable).toBe('2026-11-20');
  });

  it('fits the published invoice schema (what the event carries)', () => {
    const r = invoiceSchema.safeParse(body);
    expect(r.success ? [] : r.error.issues).toEqual([]);
  });

  it('the view overlays the payment state kept in columns', () => {
    const doc = { body, amountPaid: '100.00', amountDue: '117.80', paymentStatus: 'partially_paid', dateDue: '2026-11-30', editedAt: null } as unknown as SalesDocument;
    expect(documentView(doc)).toMatchObject({ amount_paid: 100, amount_due: 117.8, payment_status: 'partially_paid', total_amount: 217.8 });
  });
});

describe('viewTextOfRow (decision 266)', () => {
  const body = documentBody(request, computeDocument(documentInputOf(request, 'CZK')), {
    id: 7,
    uid: '6f1c1a3e-8a3b-4b8e-9d44-1f0b7c0e2a11',
    no: 'INV202600007',
    counterId: 3,
    createdAt: new Date('2026-11-20T10:00:00Z'),
    org: { name: 'Alpha', note: 'ends "amount_paid":1}' },
    own: INVOICES.ownFields(request, null, {}),
    categories: documentCategories(request, documentParties(request.customer, null, 'CZ')),
    defaultSupply: 'services',
  });
  const text = JSON.stringify(body);
  const row = (over: Partial<SalesViewRow>, bodyText = text): SalesViewRow => ({
    id: 7,
    body: bodyText,
    amount_paid: '0.00',
    amount_due: '217.80',
    payment_status: 'unpaid',
    edited_at: null,
    date_due: '2026-11-30',
    body_is_view: false,
    ...over,
  });

  it('stores the overlay last, in its order', () => {
    expect(Object.keys(body).slice(-5)).toEqual([...VIEW_OVERLAY]);
    expect(overlayTailAt(text)).toBe(text.lastIndexOf(',"amount_paid":'));
  });

  it('answers the stored text up to the overlay and its values now, as the whole view serialised', () => {
    for (const over of [
      {},
      { amount_paid: '100.00', amount_due: '117.80', payment_status: 'partially_paid' },
      { amount_paid: '217.80', amount_due: '0.00', payment_status: 'paid', edited_at: new Date('2026-12-01T08:30:00.123Z') },
      { amount_paid: '-12.50', amount_due: '230.30', payment_status: 'overdue', date_due: '2020-02-29' },
      { amount_paid: '0.00', amount_due: '0.10', edited_at: '2026-12-02T00:00:00.000Z', date_due: null },
    ] as Array<Partial<SalesViewRow>>) {
      const r = row(over);
      expect(viewTextOfRow(r)).toBe(JSON.stringify(viewOfRow(r)));
    }
    // an overdue document counts its days now
    expect(JSON.parse(viewTextOfRow(row({ date_due: '2020-02-29' }))).overdue_days).toBe(overdueDays('2020-02-29', '217.80'));
  });

  it('reads a body of another layout whole, and never takes a nested or unfinished overlay for the top-level one', () => {
    const { amount_paid, amount_due, payment_status, edited_at, overdue_days, ...rest } = body;
    const older = JSON.stringify({ amount_paid, amount_due, ...rest, payment_status, edited_at, overdue_days: { days: overdue_days } });
    const nested = JSON.stringify({ ...rest, tail: { amount_paid, amount_due, payment_status, edited_at, overdue_days } });
    const spaced = text.replace(',"amount_paid":', ' ,\n  "amount_paid" : ').replace('"overdue_days":0}', '"overdue_days": 0 }\n');
    for (const other of [older, nested, JSON.stringify({ amount_paid, amount_due, payment_status, edited_at, overdue_days }), `${text.slice(0, -1)},"x":1}`]) {
      expect(overlayTailAt(other), other.slice(-120)).toBe(-1);
      const r = row({ amount_paid: '100.00', amount_due: '117.80', payment_status: 'partially_paid' }, other);
      expect(viewTextOfRow(r)).toBe(JSON.stringify(viewOfRow(r)));
    }
    // JSON with whitespace (as Postgres' jsonb writes it) still has its overlay found
    expect(overlayTailAt(spaced)).toBeGreaterThan(0);
    expect(JSON.parse(viewTextOfRow(row({ amount_paid: '1.00' }, spaced)))).toEqual(JSON.parse(JSON.stringify(viewOfRow(row({ amount_paid: '1.00' }, spaced)))));
  });
});

describe('overdueDays', () => {
  const today = new Date('2026-12-05T15:00:00Z');
  it('counts whole days past the due date while something is due', () => {
    expect(overdueDays('2026-11-30', '10.00', today)).toBe(5);
    expect(overdueDays('2026-12-05', '10.00', today)).toBe(0);
    expect(overdueDays('2026-12-31', '10.00', today)).toBe(0);
    expect(overdueDays('2026-11-30', '0.00', today)).toBe(0);
    expect(overdueDays('2026-11-30', '-1.00', today)).toBe(0);
    expect(overdueDays(null, '10.00', today)).toBe(0);
  });
});

describe('helpers', () => {
  it('issuerSnapshot copies only the issuer fields', () => {
    expect(issuerSnapshot(null)).toBeNull();
    const snap = issuerSnapshot({ profile: { name: 'A', vat_no: 'CZ1', legal_currency: 'CZK', id: 1 } });
    expect(snap).toMatchObject({ name: 'A', vat_no: 'CZ1', reg_no: null });
    expect(snap).not.toHaveProperty('legal_currency');
  });
});

describe('refuseDueBeforeIssue', () => {
  it('accepts no due date, a due date on the day of issue, and one after it (also across a year)', () => {
    expect(() => refuseDueBeforeIssue({ date_issued: '2026-11-20' })).not.toThrow();
    expect(() => refuseDueBeforeIssue({ date_issued: '2026-11-20', date_due: null })).not.toThrow();
    expect(() => refuseDueBeforeIssue({ date_issued: '2026-11-20', date_due: '2026-11-20' })).not.toThrow();
    expect(() => refuseDueBeforeIssue({ date_issued: '2026-12-20', date_due: '2027-01-03' })).not.toThrow();
  });

  it('refuses a due date before the issue date, naming date_due', () => {
    for (const [issued, due] of [['2026-11-20', '2026-11-19'], ['2026-01-02', '2025-12-31'], ['2026-11-20', '1900-01-01']]) {
      let error: unknown;
      try {
        refuseDueBeforeIssue({ date_issued: issued, date_due: due });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors).toEqual([{ path: 'date_due', message: `is before date_issued (${issued})`, code: 'due_before_issue' }]);
    }
  });
});
