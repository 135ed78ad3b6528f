import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import { statementSections, type StatementMove } from './customer-statement.js';

const move = (currency: string, date: string, kind: StatementMove['kind'], amount: string, id = 1): StatementMove => ({
  currency,
  date,
  kind,
  document: { type: kind === 'credit_note' || kind === 'refund' ? 'sales_credit_note' : 'sales_invoice', id, no: `D${id}` },
  payment: kind === 'payment' || kind === 'refund' ? { id: 7, source: 'bank_transaction' } : null,
  amount: dec(amount),
});

describe("a customer's statement", () => {
  it('runs the balance from the opening through each move, per currency', () => {
    const sections = statementSections(new Map([['CZK', dec('1210')]]), [
      move('CZK', '2026-10-01', 'invoice', '605.50'),
      move('EUR', '2026-10-02', 'invoice', '121'),
      move('CZK', '2026-11-10', 'payment', '-210.25'),
      move('CZK', '2026-11-25', 'credit_note', '-121'),
      move('CZK', '2026-11-26', 'refund', '121'),
    ]);
    expect(sections.map((s) => [s.currency, s.opening.toFixed(2), s.lines.map((l) => l.balance.toFixed(2)), s.closing.toFixed(2)])).toEqual([
      ['CZK', '1210.00', ['1815.50', '1605.25', '1484.25', '1605.25'], '1605.25'],
      ['EUR', '0.00', ['121.00'], '121.00'],
    ]);
  });

  it('keeps a currency that only has an opening balance, and a customer with nothing is empty', () => {
    expect(statementSections(new Map([['USD', dec('-50')]]), []).map((s) => [s.currency, s.lines.length, s.closing.toFixed(2)])).toEqual([['USD', 0, '-50.00']]);
    expect(statementSections(new Map(), [])).toEqual([]);
  });
});
