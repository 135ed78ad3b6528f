import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import { fxDifference, ledgerEntryForBankTransaction, ledgerEntryForPayout, MissingLegalFiguresError, paymentFxRates, sums, type LedgerEntryDraft } from './posting.js';
import { POSTING_MAP } from './posting-map.js';
import { bankTransactionDocument, payoutDocument } from './contract-documents.fixtures.js';

/*
 * Payments in a currency other than the legal one: the bank gets the payment's legal value, the
 * paid document is cleared at its own legal value, the difference is a realised FX gain (663) or
 * loss (563).
 */

const opts = { legalCurrency: 'CZK', orgCountry: 'CZ' };
const bank = (over: Record<string, unknown>) => bankTransactionDocument({ id: 5, amount: 121, currency: 'EUR', date_transaction: '2026-11-25', ...over });
const lines = (e: LedgerEntryDraft) =>
  e.rows.map((r) => (r.debit.isZero() ? `Cr ${r.gl_account_number} ${r.credit.toFixed(2)}` : `Dr ${r.gl_account_number} ${r.debit.toFixed(2)}`)).sort();
const balanced = (e: LedgerEntryDraft) => {
  const s = sums(e.rows);
  expect(s.debit.toFixed(2)).toBe(s.credit.toFixed(2));
  expect(e.total.toFixed(2)).toBe(s.debit.toFixed(2));
};

describe('fxDifference', () => {
  it('is amount − settlement: positive a gain, negative a loss, both non-negative', () => {
    expect(fxDifference(dec('3085.50'), dec('3025.00'))).toEqual({ gain: dec('60.50'), loss: dec(0) });
    expect(fxDifference(dec('2964.50'), dec('3025.00'))).toEqual({ gain: dec(0), loss: dec('60.50') });
    // money out paying a bill at a higher rate than the bill's: a loss
    expect(fxDifference(dec('-3085.50'), dec('-3025.00'))).toEqual({ gain: dec(0), loss: dec('60.50') });
    expect(fxDifference(dec(10), dec(10))).toEqual({ gain: dec(0), loss: dec(0) });
  });
});

describe('the posting map keeps FX differences as data', () => {
  it('bank transactions and payouts credit 663 with gains and debit 563 with losses', () => {
    for (const type of ['bank_transaction', 'payout'] as const) {
      expect(POSTING_MAP[type]).toEqual(
        expect.arrayContaining([
          { role: 'fx_gain', side: 'credit', account: { kind: 'fixed', number: '663' }, figure: 'fx_gain' },
          { role: 'fx_loss', side: 'debit', account: { kind: 'fixed', number: '563' }, figure: 'fx_loss' },
        ]),
      );
    }
  });
});

describe('bank transactions in a foreign currency', () => {
  it('121 EUR at 25.5 paying an invoice of 3025.00 CZK: Dr 221 3085.50 / Cr 311 3025.00 / Cr 663 60.50', () => {
    const e = ledgerEntryForBankTransaction(
      bank({ amount_leg: 3085.5, settlement_amount_leg: 3025, fx_rate: 25.5, currency_coef: 1, fx_rate_source: 'payment', legal_currency: 'CZK', paid_record: { type: 'sales_invoice', id: 1 } }),
      opts,
    );
    expect(lines(e)).toEqual(['Cr 311 3025.00', 'Cr 663 60.50', 'Dr 221 3085.50']);
    expect(e.rows.find((r) => r.gl_account_number === '663')).toMatchObject({ role: 'fx_gain', description: 'Realised FX gain', paid_record: { type: 'sales_invoice', id: 1 } });
    expect(e).toMatchObject({ legal_currency: 'CZK', currency: 'EUR', fx_rates: [{ rate: 25.5, currency: 'EUR', source: 'payment' }] });
    balanced(e);
  });

  it('paid at a lower rate than the invoice: the loss goes to 563', () => {
    const e = ledgerEntryForBankTransaction(bank({ amount_leg: 2964.5, settlement_amount_leg: 3025, fx_rate: 24.5, paid_record: { type: 'sales_invoice', id: 1 } }), opts);
    expect(lines(e)).toEqual(['Cr 311 3025.00', 'Dr 221 2964.50', 'Dr 563 60.50']);
    balanced(e);
  });

  it('money out paying a vendor bill at a higher rate: Dr 321 bill value, Dr 563 loss / Cr 221 paid value', () => {
    const e = ledgerEntryForBankTransaction(bank({ amount: -121, amount_leg: -3085.5, settlement_amount_leg: -3025, fx_rate: 25.5, paid_record: { type: 'purchase_bill', id: 2 } }), opts);
    expect(lines(e)).toEqual(['Cr 221 3085.50', 'Dr 321 3025.00', 'Dr 563 60.50']);
    balanced(e);
  });

  it('at the document rate there is no FX row; unmatched payments go to 395 at their own value', () => {
    expect(lines(ledgerEntryForBankTransaction(bank({ amount_leg: 3025, settlement_amount_leg: 3025, fx_rate: 25, fx_rate_source: 'paid_document', paid_record: { type: 'sales_invoice', id: 1 } }), opts))).toEqual([
      'Cr 311 3025.00',
      'Dr 221 3025.00',
    ]);
    const unmatched = ledgerEntryForBankTransaction(bank({ amount: 10, amount_leg: 251.5, fx_rate: 25.15 }), opts);
    expect(lines(unmatched)).toEqual(['Cr 395 251.50', 'Dr 221 251.50']);
    expect(unmatched.fx_rates).toEqual([{ rate: 25.15, currency: 'EUR', source: 'payment' }]);
  });

  it('events from before the change (no _leg figures) still post in the legal currency; foreign ones without a rate cannot', () => {
    const old = ledgerEntryForBankTransaction(bank({ currency: 'CZK', amount: 298, paid_record: { type: 'sales_invoice', id: 1 } }), opts);
    expect(lines(old)).toEqual(['Cr 311 298.00', 'Dr 221 298.00']);
    expect(old.fx_rates).toEqual([]);
    expect(() => ledgerEntryForBankTransaction(bank({}), opts)).toThrow(MissingLegalFiguresError);
  });
});

describe('payouts in a foreign currency', () => {
  it('Dr 221 Σ line values; each paid line clears at its document value; fees at the payout rate; differences per line', () => {
    const p = payoutDocument({
      id: 4,
      currency: 'EUR',
      date_issued: '2026-11-26',
      fx_rate: 25.5,
      currency_coef: 1,
      total_amount: 216,
      total_amount_leg: 5508,
      lines: [
        { amount: 121, amount_leg: 3085.5, settlement_amount_leg: 3025, fx_rate: 25.5, paid_record: { type: 'sales_invoice', id: 1 } },
        { amount: 100, amount_leg: 2550, settlement_amount_leg: 2600, fx_rate: 25.5, paid_record: { type: 'sales_invoice', id: 2 } },
        { amount: -5, amount_leg: -127.5, fx_rate: 25.5, gl_account: { number: '568' } },
      ],
    });
    const e = ledgerEntryForPayout(p, opts);
    expect(lines(e)).toEqual(['Cr 311 2600.00', 'Cr 311 3025.00', 'Cr 663 60.50', 'Dr 221 5508.00', 'Dr 563 50.00', 'Dr 568 127.50']);
    expect(e.fx_rates).toEqual([{ rate: 25.5, currency: 'EUR', source: 'payment' }]);
    balanced(e);
  });

  it('lines converted at their documents rates list each rate once', () => {
    expect(
      paymentFxRates('EUR', 'CZK', [
        { fx_rate: 25, fx_rate_source: 'paid_document' },
        { fx_rate: 24.8, fx_rate_source: 'paid_document' },
        { fx_rate: 25, fx_rate_source: 'paid_document' },
      ]),
    ).toEqual([
      { rate: 25, currency: 'EUR', source: 'paid_document' },
      { rate: 24.8, currency: 'EUR', source: 'paid_document' },
    ]);
    expect(paymentFxRates('CZK', 'CZK', [{ fx_rate: 1 }])).toEqual([]);
  });
});
