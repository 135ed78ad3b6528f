import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import {
  counterAccount,
  ledgerEntryForBankTransaction,
  ledgerEntryForPayout,
  ledgerEntryForPurchaseDocument,
  ledgerEntryForSalesDocument,
  MissingLegalFiguresError,
  reversalOf,
  UnbalancedEntryError,
  type LedgerEntryDraft,
} from './posting.js';
import { POSTING_MAP, SOURCE_TYPES } from './posting-map.js';
import { bankTransactionDocument, payoutDocument, purchaseDocument, salesDocument } from './contract-documents.fixtures.js';

const opts = { legalCurrency: 'CZK', orgCountry: 'CZ' };

function tax(rate: number, base: number, amount: number, leg?: { base: number; amount: number }, extra: Record<string, unknown> = {}) {
  return { tax_rate: rate, tax_base: base, tax_amount: amount, ...(leg ? { tax_base_leg: leg.base, tax_amount_leg: leg.amount } : {}), ...extra };
}

function sales(over: Record<string, unknown> = {}) {
  return salesDocument({
    id: 1,
    no: 'INV1',
    currency: 'CZK',
    date_issued: '2025-03-10',
    total_amount: 298,
    subtotal_amount: 250,
    customer: { id: 7, business_name: 'Odběratel s.r.o.', vat_no: 'CZ123', address: { country: 'CZ' } },
    items: [
      { amount: 200, taxes: [tax(21, 200, 42)] },
      { amount: 50, taxes: [tax(12, 50, 6)] },
    ],
    taxes: [tax(21, 200, 42), tax(12, 50, 6)],
    ...over,
  });
}

function purchase(over: Record<string, unknown> = {}) {
  return purchaseDocument({
    id: 3,
    no: 'VC3',
    currency: 'CZK',
    date_issued: '2025-03-12',
    total_amount: 1210,
    subtotal_amount: 1000,
    vendor: { id: 9, business_name: 'Dodavatel a.s.', vat_no: 'CZ999', address: { country: 'CZ' } },
    items: [{ amount: 1000, taxes: [tax(21, 1000, 210)] }],
    taxes: [tax(21, 1000, 210)],
    ...over,
  });
}

/** The entry as sorted "Dr 311 298.00" strings. */
function lines(e: LedgerEntryDraft): string[] {
  return e.rows.map((r) => (r.debit.isZero() ? `Cr ${r.gl_account_number} ${r.credit.toFixed(2)}` : `Dr ${r.gl_account_number} ${r.debit.toFixed(2)}`)).sort();
}

function balanced(e: LedgerEntryDraft) {
  const d = e.rows.reduce((s, r) => s.plus(r.debit), dec(0));
  const c = e.rows.reduce((s, r) => s.plus(r.credit), dec(0));
  expect(d.toFixed(2)).toBe(c.toFixed(2));
  expect(e.total.toFixed(2)).toBe(d.toFixed(2));
}

describe('posting map', () => {
  it('is data: every source type has rules, each with a side, an account source and a figure', () => {
    for (const t of SOURCE_TYPES) {
      expect(POSTING_MAP[t].length).toBeGreaterThan(0);
      for (const r of POSTING_MAP[t]) expect(['debit', 'credit']).toContain(r.side);
    }
    expect(POSTING_MAP.sales_invoice.map((r) => `${r.side} ${'number' in r.account ? r.account.number : r.account.kind} ${r.figure}`)).toEqual([
      'debit 311 total',
      'credit 604 net',
      'credit 343 tax',
      'credit 648 rounding_gain',
      'debit 548 rounding_loss',
      'debit 324 advance_net',
      'debit 343 advance_tax',
      'credit 311 advance_total',
    ]);
    expect(POSTING_MAP.sales_advance_tax_document.map((r) => `${r.side} ${'number' in r.account ? r.account.number : r.account.kind} ${r.figure}`)).toEqual(['debit 324 tax', 'credit 343 tax']);
  });
});

describe('a document rounded to whole crowns (BT-114)', () => {
  const rounded = (r: number, total: number, extra: Record<string, unknown> = {}) => ({
    total_amount: total,
    subtotal_amount: 1000.33,
    rounding_amount: r,
    items: [{ amount: 1000.33, taxes: [tax(21, 1000.33, 210.07)] }],
    taxes: [tax(21, 1000.33, 210.07)],
    ...extra,
  });

  it('an invoice rounded down: the 0.40 less asked of the customer is a loss, Dr 548', () => {
    const e = ledgerEntryForSalesDocument('sales_invoice', sales(rounded(-0.4, 1210)), opts);
    expect(lines(e)).toEqual(['Cr 343 210.07', 'Cr 604 1000.33', 'Dr 311 1210.00', 'Dr 548 0.40']);
    balanced(e);
  });

  it('an invoice rounded up: the 0.50 more is a gain, Cr 648', () => {
    const e = ledgerEntryForSalesDocument('sales_invoice', sales(rounded(0.5, 1210.9, { subtotal_amount: 1000.33, taxes: [tax(21, 1000.33, 210.07)] })), opts);
    expect(lines(e)).toContain('Cr 648 0.50');
    expect(lines(e)).toContain('Dr 311 1210.90');
    balanced(e);
  });

  it('a credit note rounded down refunds 0.40 less: a gain, Cr 648', () => {
    const e = ledgerEntryForSalesDocument('sales_credit_note', sales(rounded(-0.4, 1210)), opts);
    expect(lines(e)).toEqual(['Cr 311 1210.00', 'Cr 648 0.40', 'Dr 343 210.07', 'Dr 604 1000.33']);
    balanced(e);
  });

  it('a bill rounded up owes the vendor 0.22 more: a loss, Dr 548; a vendor credit rounded up is a gain', () => {
    const doc = { total_amount: 1210.22, subtotal_amount: 1000, rounding_amount: 0.22 };
    const bill = ledgerEntryForPurchaseDocument('purchase_bill', purchase(doc), opts);
    expect(lines(bill)).toEqual(['Cr 321 1210.22', 'Dr 343 210.00', 'Dr 504 1000.00', 'Dr 548 0.22']);
    balanced(bill);
    const credit = ledgerEntryForPurchaseDocument('purchase_vendor_credit', purchase(doc), opts);
    expect(lines(credit)).toEqual(['Cr 343 210.00', 'Cr 504 1000.00', 'Cr 648 0.22', 'Dr 321 1210.22']);
    balanced(credit);
  });

  it('a foreign-currency invoice posts the rounding at its stated legal value', () => {
    const e = ledgerEntryForSalesDocument(
      'sales_invoice',
      sales({
        currency: 'EUR',
        fx_rate: 25,
        total_amount: 121,
        subtotal_amount: 100,
        rounding_amount: 0.2,
        rounding_amount_leg: 5,
        subtotal_amount_leg: 2500,
        tax_amount_leg: 520,
        total_amount_leg: 3025,
        items: [{ amount: 100, taxes: [tax(21, 100, 20.8, { base: 2500, amount: 520 })] }],
        taxes: [tax(21, 100, 20.8, { base: 2500, amount: 520 })],
      }),
      opts,
    );
    expect(lines(e)).toEqual(['Cr 343 520.00', 'Cr 604 2500.00', 'Cr 648 5.00', 'Dr 311 3025.00']);
    balanced(e);
  });
});

describe('sales documents', () => {
  it('invoice: Dr 311 total / Cr 604 subtotal, Cr 343 tax, with one ledger tax row per recap line', () => {
    const e = ledgerEntryForSalesDocument('sales_invoice', sales(), opts);
    expect(lines(e)).toEqual(['Cr 343 48.00', 'Cr 604 250.00', 'Dr 311 298.00']);
    balanced(e);
    expect(e).toMatchObject({ type: 'sales_invoice', date_posting: '2025-03-10', no: 'INV1', currency: 'CZK', legal_currency: 'CZK', source: { type: 'sales_invoice', id: 1, version: 1 } });
    const vat = e.rows.find((r) => r.gl_account_number === '343')!;
    expect(vat.taxes.map((t) => [t.tax_rate?.toNumber(), t.credit.toFixed(2), t.tax_return_base_out, t.tax_control_statement])).toEqual([
      [21, '42.00', '1', 'A.5'],
      [12, '6.00', '2', 'A.5'],
    ]);
  });

  it('credit note: Dr 604 / Dr 343 / Cr 311, negative VAT figures, section of the credited invoice', () => {
    const doc = sales({ total_amount: 121, subtotal_amount: 100, items: [{ amount: 100, taxes: [tax(21, 100, 21)] }], taxes: [tax(21, 100, 21)] });
    const e = ledgerEntryForSalesDocument('sales_credit_note', doc, { ...opts, controlStatementOverride: 'A.4' });
    expect(lines(e)).toEqual(['Cr 311 121.00', 'Dr 343 21.00', 'Dr 604 100.00']);
    const t = e.rows.find((r) => r.gl_account_number === '343')!.taxes[0];
    expect([t.tax_base_out_leg?.toNumber(), t.tax_amount_out_leg?.toNumber(), t.debit.toNumber(), t.tax_control_statement]).toEqual([-100, -21, 21, 'A.4']);
  });

  it('A.4 above 10 000 with a buyer VAT id, A.5 without one', () => {
    const big = { total_amount: 12100, subtotal_amount: 10000, items: [{ amount: 10000, taxes: [tax(21, 10000, 2100)] }], taxes: [tax(21, 10000, 2100)] };
    expect(ledgerEntryForSalesDocument('sales_invoice', sales(big), opts).rows[2].taxes[0].tax_control_statement).toBe('A.4');
    const b2c = sales({ ...big, customer: { business_name: 'Jan Novák', vat_no: null } });
    expect(ledgerEntryForSalesDocument('sales_invoice', b2c, opts).rows[2].taxes[0].tax_control_statement).toBe('A.5');
  });

  it('foreign currency: sums the stored _leg figures, never reconverts', () => {
    const doc = sales({
      currency: 'EUR',
      fx_rate: 25.123,
      total_amount: 121,
      subtotal_amount: 100,
      items: [{ amount: 100, taxes: [tax(21, 100, 21)] }],
      taxes: [tax(21, 100, 21, { base: 2512.3, amount: 527.58 })],
    });
    const e = ledgerEntryForSalesDocument('sales_invoice', doc, opts);
    expect(lines(e)).toEqual(['Cr 343 527.58', 'Cr 604 2512.30', 'Dr 311 3039.88']);
    expect(e.fx_rates).toEqual([{ rate: 25.123, currency: 'EUR', source: 'document' }]);
  });

  it('foreign currency without _leg figures converts with the fx rate, or refuses without one', () => {
    const doc = sales({ currency: 'EUR', fx_rate: 25, total_amount: 121, subtotal_amount: 100, items: [{ amount: 100 }], taxes: [tax(21, 100, 21)] });
    expect(lines(ledgerEntryForSalesDocument('sales_invoice', doc, opts))).toEqual(['Cr 343 525.00', 'Cr 604 2500.00', 'Dr 311 3025.00']);
    expect(() => ledgerEntryForSalesDocument('sales_invoice', sales({ currency: 'EUR' }), opts)).toThrow(MissingLegalFiguresError);
  });

  it('an event whose stated legal total disagrees with its figures cannot balance', () => {
    expect(() => ledgerEntryForSalesDocument('sales_invoice', sales({ total_amount_leg: 300 }), opts)).toThrow(UnbalancedEntryError);
  });

  it("an item's gl_account overrides 604 for its base; the rest stays on 604", () => {
    const doc = sales({ items: [{ amount: 200, gl_account: { number: '602' }, taxes: [tax(21, 200, 42)] }, { amount: 50, taxes: [tax(12, 50, 6)] }] });
    expect(lines(ledgerEntryForSalesDocument('sales_invoice', doc, opts))).toEqual(['Cr 343 48.00', 'Cr 602 200.00', 'Cr 604 50.00', 'Dr 311 298.00']);
  });

  it('reverse-charge and intra-EU sales report rows 25/A.1 and 20/21 with EC sales list codes', () => {
    const rc = sales({ total_amount: 100, subtotal_amount: 100, items: [{ amount: 100 }], taxes: [tax(21, 100, 0, undefined, { rate_type: 'reverse_charge' })] });
    const e = ledgerEntryForSalesDocument('sales_invoice', rc, opts);
    expect(lines(e)).toEqual(['Cr 343 0.00', 'Cr 604 100.00', 'Dr 311 100.00']);
    expect(e.rows.find((r) => r.gl_account_number === '343')!.taxes[0]).toMatchObject({ is_reverse_charge: true, tax_return_base_out: '25', tax_control_statement: 'A.1' });
    const eu = (supply?: string) =>
      ledgerEntryForSalesDocument(
        'sales_invoice',
        sales({ customer: { vat_no: 'DE123', address: { country: 'DE' } }, total_amount: 100, subtotal_amount: 100, items: [{ amount: 100 }], taxes: [tax(0, 100, 0, undefined, supply ? { tax_details: { supply } } : {})] }),
        opts,
      ).rows.find((r) => r.gl_account_number === '343')!.taxes[0];
    expect(eu()).toMatchObject({ tax_return_base_out: '20', tax_eu_sales_report: '0', tax_control_statement: null });
    expect(eu('services')).toMatchObject({ tax_return_base_out: '21', tax_eu_sales_report: '3' });
  });

  it('a document without tax lines posts only receivable and revenue', () => {
    const doc = sales({ total_amount: 100, subtotal_amount: 100, items: [{ amount: 100 }], taxes: [] });
    expect(lines(ledgerEntryForSalesDocument('sales_invoice', doc, opts))).toEqual(['Cr 604 100.00', 'Dr 311 100.00']);
  });
});

describe('purchase documents', () => {
  it('vendor credit: Dr 321 total / Cr 504 subtotal, Cr 343 tax', () => {
    const e = ledgerEntryForPurchaseDocument('purchase_vendor_credit', purchase(), opts);
    expect(lines(e)).toEqual(['Cr 343 210.00', 'Cr 504 1000.00', 'Dr 321 1210.00']);
    expect(e.rows.find((r) => r.gl_account_number === '343')!.taxes[0]).toMatchObject({ tax_return_amount_claim: '40', tax_control_statement: 'B.3' });
    balanced(e);
  });

  it('bill: Dr 504 subtotal, Dr 343 tax / Cr 321 total; B.2 above 10 000', () => {
    const doc = purchase({ total_amount: 24200, subtotal_amount: 20000, items: [{ amount: 20000, taxes: [tax(21, 20000, 4200)] }], taxes: [tax(21, 20000, 4200)] });
    const e = ledgerEntryForPurchaseDocument('purchase_bill', doc, opts);
    expect(lines(e)).toEqual(['Cr 321 24200.00', 'Dr 343 4200.00', 'Dr 504 20000.00']);
    expect(e.rows.find((r) => r.gl_account_number === '343')!.taxes[0]).toMatchObject({ tax_control_statement: 'B.2', tax_return_base_in: '40' });
  });

  it('bill with a deduction ratio: the non-deductible part of the tax goes to 504', () => {
    const doc = purchase({ items: [{ amount: 1000, tax_deduction_ratio: 0.3, taxes: [tax(21, 1000, 210)] }] });
    const e = ledgerEntryForPurchaseDocument('purchase_bill', doc, opts);
    expect(lines(e)).toEqual(['Cr 321 1210.00', 'Dr 343 63.00', 'Dr 504 1000.00', 'Dr 504 147.00']);
    expect(e.tax_deduction_ratio?.toNumber()).toBe(0.3);
    expect(e.rows.find((r) => r.gl_account_number === '343')!.taxes[0].tax_amount_claim_leg?.toNumber()).toBe(63);
  });

  it('weighted deduction ratio across items of one tax', () => {
    const doc = purchase({
      total_amount: 2420,
      subtotal_amount: 2000,
      items: [
        { amount: 1000, tax_deduction_ratio: 1, taxes: [tax(21, 1000, 210)] },
        { amount: 1000, tax_deduction_ratio: 0, taxes: [tax(21, 1000, 210)] },
      ],
      taxes: [tax(21, 2000, 420)],
    });
    expect(lines(ledgerEntryForPurchaseDocument('purchase_bill', doc, opts))).toEqual(['Cr 321 2420.00', 'Dr 343 210.00', 'Dr 504 2000.00', 'Dr 504 210.00']);
  });

  it('deduction ratios are weighted per tax even when item tax lines carry no code', () => {
    const doc = purchase({
      total_amount: 1362,
      subtotal_amount: 1200,
      items: [
        { amount: 1000, tax_deduction_ratio: 0.5, taxes: [tax(12, 1000, 120)] },
        { amount: 200, tax_deduction_ratio: 1, taxes: [tax(21, 200, 42)] },
      ],
      taxes: [tax(12, 1000, 120, undefined, { tax_code: 'VAT12' }), tax(21, 200, 42, undefined, { tax_code: 'VAT21' })],
    });
    const e = ledgerEntryForPurchaseDocument('purchase_bill', doc, opts);
    expect(lines(e)).toEqual(['Cr 321 1362.00', 'Dr 343 102.00', 'Dr 504 1200.00', 'Dr 504 60.00']);
    expect(e.tax_deduction_ratio).toBeNull();
  });

  it('domestic reverse-charge bill self-assesses: Dr 343 claim / Cr 343 output, rows 10/43, B.1', () => {
    const doc = purchase({ total_amount: 1000, subtotal_amount: 1000, items: [{ amount: 1000 }], taxes: [tax(21, 1000, 0, undefined, { tax_code: 'RC' })] });
    const e = ledgerEntryForPurchaseDocument('purchase_bill', doc, opts);
    expect(lines(e)).toEqual(['Cr 321 1000.00', 'Cr 343 210.00', 'Dr 343 210.00', 'Dr 504 1000.00']);
    balanced(e);
    const t = e.rows.find((r) => r.taxes.length)!.taxes[0];
    expect(t).toMatchObject({ is_reverse_charge: true, tax_return_base_out: '10', tax_return_amount_claim: '43', tax_control_statement: 'B.1' });
    expect([t.debit.toNumber(), t.credit.toNumber()]).toEqual([210, 210]);
  });

  it('an item gl_account overrides 504 (services purchased on 518)', () => {
    const doc = purchase({ items: [{ amount: 1000, gl_account: { number: '518' }, taxes: [tax(21, 1000, 210)] }] });
    expect(lines(ledgerEntryForPurchaseDocument('purchase_bill', doc, opts))).toEqual(['Cr 321 1210.00', 'Dr 343 210.00', 'Dr 518 1000.00']);
  });
});

describe('payments', () => {
  const bank = (over: Record<string, unknown>) => bankTransactionDocument({ id: 5, amount: 298, currency: 'CZK', date_transaction: '2025-03-13', ...over });

  it('money in: Dr 221 / Cr 311 when it pays a sales document, its gl_account otherwise, else 395', () => {
    expect(lines(ledgerEntryForBankTransaction(bank({ paid_record: { type: 'sales_invoice', id: 1 } }), opts))).toEqual(['Cr 311 298.00', 'Dr 221 298.00']);
    expect(lines(ledgerEntryForBankTransaction(bank({ gl_account: { number: '663' } }), opts))).toEqual(['Cr 663 298.00', 'Dr 221 298.00']);
    expect(lines(ledgerEntryForBankTransaction(bank({}), opts))).toEqual(['Cr 395 298.00', 'Dr 221 298.00']);
  });

  it('money out: Dr 321 for a vendor document, Dr 311 for a refunded credit note, else gl_account / 395; Cr 221', () => {
    expect(lines(ledgerEntryForBankTransaction(bank({ amount: -100, paid_record: { type: 'purchase_bill', id: 1 } }), opts))).toEqual(['Cr 221 100.00', 'Dr 321 100.00']);
    expect(lines(ledgerEntryForBankTransaction(bank({ amount: -100, paid_record: { type: 'sales_credit_note', id: 2 } }), opts))).toEqual(['Cr 221 100.00', 'Dr 311 100.00']);
    expect(lines(ledgerEntryForBankTransaction(bank({ amount: -100, gl_account: { number: '568' } }), opts))).toEqual(['Cr 221 100.00', 'Dr 568 100.00']);
    expect(lines(ledgerEntryForBankTransaction(bank({ amount: -100 }), opts))).toEqual(['Cr 221 100.00', 'Dr 395 100.00']);
  });

  it('a payment finance could not match waits in 395 (or its gl_account), whatever document its paid record named', () => {
    // the paid record named an invoice the organisation does not have (or one in another currency): nothing was paid
    const unmatched = ledgerEntryForBankTransaction(bank({ paid_record: { type: 'sales_invoice', id: 99 }, match_status: 'unmatched' }), opts);
    expect(lines(unmatched)).toEqual(['Cr 395 298.00', 'Dr 221 298.00']);
    expect(unmatched.rows.map((r) => r.paid_record)).toEqual([null, null]);
    expect(lines(ledgerEntryForBankTransaction(bank({ amount: -100, paid_record: { type: 'purchase_bill', id: 99 }, match_status: 'unmatched' }), opts))).toEqual(['Cr 221 100.00', 'Dr 395 100.00']);
    expect(lines(ledgerEntryForBankTransaction(bank({ paid_record: { type: 'sales_invoice', id: 99 }, match_status: 'unmatched', gl_account: { number: '663' } }), opts))).toEqual(['Cr 663 298.00', 'Dr 221 298.00']);
    // matched, or from before finance said (no match_status): by the paid document's type
    expect(lines(ledgerEntryForBankTransaction(bank({ paid_record: { type: 'sales_invoice', id: 1 }, match_status: 'matched' }), opts))).toEqual(['Cr 311 298.00', 'Dr 221 298.00']);
    const p = payoutDocument({
      id: 10,
      currency: 'CZK',
      date_issued: '2025-03-14',
      lines: [
        { amount: 500, paid_record: { type: 'sales_invoice', id: 1 }, match_status: 'matched' },
        { amount: 40, paid_record: { type: 'sales_invoice', id: 99 }, match_status: 'unmatched' },
      ],
    });
    expect(lines(ledgerEntryForPayout(p, opts))).toEqual(['Cr 311 500.00', 'Cr 395 40.00', 'Dr 221 540.00']);
  });

  it('posts on date_accounting, else date_transaction; a foreign amount needs amount_leg or fx_rate', () => {
    expect(ledgerEntryForBankTransaction(bank({ date_accounting: '2025-03-14' }), opts).date_posting).toBe('2025-03-14');
    expect(() => ledgerEntryForBankTransaction(bank({ currency: 'EUR' }), opts)).toThrow(MissingLegalFiguresError);
    expect(lines(ledgerEntryForBankTransaction(bank({ currency: 'EUR', amount: 10, amount_leg: 251.5 }), opts))).toEqual(['Cr 395 251.50', 'Dr 221 251.50']);
  });

  it('counter account resolution', () => {
    expect(counterAccount({ type: 'sales_invoice' }, { number: '602' })).toBe('311');
    expect(counterAccount({ type: 'purchase_vendor_credit' }, null)).toBe('321');
    expect(counterAccount(null, { number: ' ' })).toBe('395');
  });

  it('payout: Dr 221 total; Cr 311 per paid line; fee lines Dr their gl_account', () => {
    const p = payoutDocument({
      id: 9,
      version: 2,
      currency: 'CZK',
      date_issued: '2025-03-14',
      lines: [
        { amount: 500, paid_record: { type: 'sales_invoice', id: 1 } },
        { amount: 300, paid_record: { type: 'sales_invoice', id: 2 } },
        { amount: -12.5, gl_account: { number: '568' } },
        { amount: -20 },
      ],
    });
    const e = ledgerEntryForPayout(p, opts);
    expect(lines(e)).toEqual(['Cr 311 300.00', 'Cr 311 500.00', 'Dr 221 767.50', 'Dr 395 20.00', 'Dr 568 12.50']);
    expect(e.source).toEqual({ type: 'payout', id: 9, version: 2, no: null });
    balanced(e);
  });

  it('a payout whose fees exceed its payments credits 221', () => {
    const p = payoutDocument({ id: 1, currency: 'CZK', date_issued: '2025-03-14', lines: [{ amount: 10, paid_record: { type: 'sales_invoice', id: 1 } }, { amount: -30, gl_account: { number: '568' } }] });
    expect(lines(ledgerEntryForPayout(p, opts))).toEqual(['Cr 221 20.00', 'Cr 311 10.00', 'Dr 568 30.00']);
  });

  it('a payout without a date uses its lines, else the event date', () => {
    const p = payoutDocument({ id: 1, currency: 'CZK', lines: [{ amount: 10, date_accounting: '2025-01-02' }, { amount: 5, date_accounting: '2025-01-05' }] });
    expect(ledgerEntryForPayout(p, opts).date_posting).toBe('2025-01-05');
    expect(ledgerEntryForPayout(payoutDocument({ id: 1, currency: 'CZK', lines: [{ amount: 1 }] }), { ...opts, fallbackDate: '2025-02-01' }).date_posting).toBe('2025-02-01');
  });
});

describe('reversal and event shapes', () => {
  it('a reversal swaps debit and credit of every row and keeps the date', () => {
    const e = ledgerEntryForSalesDocument('sales_invoice', sales(), opts);
    const r = reversalOf(e);
    expect(lines(r)).toEqual(['Cr 311 298.00', 'Dr 343 48.00', 'Dr 604 250.00']);
    expect(r).toMatchObject({ type: 'reversal', entry_kind: 'reversal', date_posting: e.date_posting });
  });
});

describe('advances (decision 236)', () => {
  const advance = {
    proforma_id: 5,
    proforma_no: 'PF26900001',
    amount: 12200,
    amount_leg: 12200,
    untaxed_amount: 100,
    taxes: [{ tax_rate: 21, tax_code: 'S21', tax_base: 10000, tax_amount: 2100, tax_base_leg: 10000, tax_amount_leg: 2100 }],
    tax_documents: [{ id: 6, no: 'DZ202600001' }],
  };
  const finalInvoice = () =>
    sales({
      total_amount: 13310,
      subtotal_amount: 11000,
      items: [{ amount: 11000, taxes: [tax(21, 11000, 2310)] }],
      taxes: [tax(21, 11000, 2310)],
      advances: [advance],
      advance_amount: 12200,
    });

  it('a final invoice posts the supply and clears the advances: Dr 324 without VAT, Dr 343 their VAT, Cr 311 the whole', () => {
    const e = ledgerEntryForSalesDocument('sales_invoice', finalInvoice(), opts);
    balanced(e);
    expect(lines(e)).toEqual(['Cr 311 12200.00', 'Cr 343 2310.00', 'Cr 604 11000.00', 'Dr 311 13310.00', 'Dr 324 10100.00', 'Dr 343 2100.00']);
    // the VAT return reads the supply's row and the deduction's negative one: 1 000 / 210 net
    const taxRows = e.rows.flatMap((r) => r.taxes);
    expect(taxRows.map((t) => [t.tax_base_out_leg?.toFixed(2), t.tax_amount_out_leg?.toFixed(2)])).toEqual([
      ['11000.00', '2310.00'],
      ['-10000.00', '-2100.00'],
    ]);
  });

  it('a tax document on a received payment posts its VAT alone: Dr 324 / Cr 343, reported as a supply', () => {
    const doc = sales({
      no: 'DZ202600001',
      date_issued: '2026-10-05',
      date_taxable: '2026-10-05',
      total_amount: 1100,
      subtotal_amount: 909.09,
      items: [{ amount: 909.09, taxes: [tax(21, 909.09, 190.91)] }],
      taxes: [tax(21, 909.09, 190.91)],
      proforma_id: 5,
      proforma_no: 'PF26900001',
      payment: { payment_id: 9, source: 'bank_transaction', date: '2026-10-05', amount: 1100, accounted_amount: 1100 },
    });
    const e = ledgerEntryForSalesDocument('sales_advance_tax_document', doc, opts);
    balanced(e);
    expect(lines(e)).toEqual(['Cr 343 190.91', 'Dr 324 190.91']);
    expect(e.date_posting).toBe('2026-10-05');
    expect(e.rows.flatMap((r) => r.taxes).map((t) => [t.tax_base_out_leg?.toFixed(2), t.tax_amount_out_leg?.toFixed(2)])).toEqual([['909.09', '190.91']]);
  });

  it('a refund of an advance declares it back: the same rows the other way', () => {
    const doc = sales({ total_amount: -1210, subtotal_amount: -1000, items: [{ amount: -1000, taxes: [tax(21, -1000, -210)] }], taxes: [tax(21, -1000, -210)] });
    expect(lines(ledgerEntryForSalesDocument('sales_advance_tax_document', doc, opts))).toEqual(['Cr 324 210.00', 'Dr 343 210.00']);
  });
});

describe('advance bills (decision 237)', () => {
  const deduction = {
    bill_id: 5,
    bill_no: 'ADV202600001',
    vendor_doc_no: 'ZF-118',
    amount: 60500,
    amount_leg: 60500,
    untaxed_amount: 0,
    taxes: [{ tax_rate: 21, tax_code: 'S21', tax_base: 50000, tax_amount: 10500, tax_base_leg: 50000, tax_amount_leg: 10500 }],
    tax_documents: [{ id: 6, no: 'ATD202600001' }],
  };

  it('the map: a final bill clears the advances Dr 321 / Cr 314 / Cr 343; a tax document Dr 343 / Cr 314', () => {
    const said = (t: keyof typeof POSTING_MAP) => POSTING_MAP[t].map((r) => `${r.side} ${'number' in r.account ? r.account.number : r.account.kind} ${r.figure}`);
    expect(said('purchase_bill').slice(-3)).toEqual(['debit 321 advance_total', 'credit 314 advance_net', 'credit 343 advance_tax']);
    expect(said('purchase_advance_tax_document')).toEqual(['debit 343 tax_deductible', 'credit 314 tax_deductible']);
  });

  it('a final bill posts the supply and clears the advance: the VAT return reads the supply and the deduction taken back', () => {
    const doc = purchase({
      total_amount: 72600,
      subtotal_amount: 60000,
      items: [{ amount: 60000, taxes: [tax(21, 60000, 12600)] }],
      taxes: [tax(21, 60000, 12600)],
      advances: [deduction],
      advance_amount: 60500,
    });
    const e = ledgerEntryForPurchaseDocument('purchase_bill', doc, opts);
    balanced(e);
    expect(lines(e)).toEqual(['Cr 314 50000.00', 'Cr 321 72600.00', 'Cr 343 10500.00', 'Dr 321 60500.00', 'Dr 343 12600.00', 'Dr 504 60000.00']);
    const taxRows = e.rows.flatMap((r) => r.taxes);
    expect(taxRows.map((t) => [t.tax_base_in_leg?.toFixed(2), t.tax_amount_claim_leg?.toFixed(2), t.tax_return_amount_claim])).toEqual([
      ['60000.00', '12600.00', '40'],
      ['-50000.00', '-10500.00', '40'],
    ]);
  });

  it('a tax document on a paid advance claims its VAT alone, on its tax point', () => {
    const doc = purchase({
      date_issued: '2026-10-06',
      date_taxable: '2026-10-06',
      taxes_included: true,
      total_amount: 60500,
      subtotal_amount: 50000,
      items: [{ amount: 50000, taxes: [tax(21, 50000, 10500)] }],
      taxes: [tax(21, 50000, 10500)],
      advance_bill_id: 5,
    });
    const e = ledgerEntryForPurchaseDocument('purchase_advance_tax_document', doc, opts);
    balanced(e);
    expect(lines(e)).toEqual(['Cr 314 10500.00', 'Dr 343 10500.00']);
    expect(e.date_posting).toBe('2026-10-06');
    expect(e.rows.flatMap((r) => r.taxes).map((t) => [t.tax_base_in_leg?.toFixed(2), t.tax_amount_claim_leg?.toFixed(2), t.tax_control_statement])).toEqual([['50000.00', '10500.00', 'B.2']]);
  });
});
