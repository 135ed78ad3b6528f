import { describe, expect, it } from 'vitest';
import { ALL_COLUMNS, projectRows, selectedColumns, trialBalanceCsv, yearStart, type TrialBalanceView } from './trial-balance.js';

const tb: TrialBalanceView = {
  currency: 'CZK',
  period_from: '2025-02',
  period_to: '2025-02',
  date_from: '2025-02-01',
  date_to: '2025-02-28',
  rows: [
    { gl_account: { id: 4, number: '311', name: 'Customers, "trade"', description: null }, ob: 1210, debit: 224, credit: 1210, cb: 224, ytd_debit: 224, ytd_credit: 1210 },
    { gl_account: { id: 9, number: '604', name: 'Revenue from goods', description: null }, ob: -1000, debit: 0, credit: 200.5, cb: -1200.5, ytd_debit: 0, ytd_credit: 200.5 },
  ],
};

describe('trial balance export', () => {
  it('year-to-date starts on 1 January of date_to, or of today for an open range', () => {
    expect(yearStart('2025-02-28', '2026-11-23')).toBe('2025-01-01');
    expect(yearStart(undefined, '2026-11-23')).toBe('2026-01-01');
  });

  it('the first non-empty columns list selects the columns; none selects all', () => {
    expect(selectedColumns(undefined).map((c) => c.key)).toEqual([...ALL_COLUMNS]);
    expect(selectedColumns([{ columns: null }, { columns: [] }]).map((c) => c.key)).toEqual([...ALL_COLUMNS]);
    expect(selectedColumns([{ columns: [] }, { columns: [{ key: 'cb' }] }, { columns: [{ key: 'ob' }] }])).toEqual([{ key: 'cb' }]);
  });

  it('csv: header of titles or keys, amounts with two decimals, quoting where needed', () => {
    expect(trialBalanceCsv(tb, selectedColumns([]))).toBe(
      'gl_account.number,gl_account.name,ob,debit,credit,cb,ytd_debit,ytd_credit\r\n' +
        '311,"Customers, ""trade""",1210.00,224.00,1210.00,224.00,224.00,1210.00\r\n' +
        '604,Revenue from goods,-1000.00,0.00,200.50,-1200.50,0.00,200.50\r\n',
    );
    expect(trialBalanceCsv(tb, [{ key: 'cb', title: 'Zůstatek' }, { key: 'gl_account.number' }])).toBe('Zůstatek,gl_account.number\r\n224.00,311\r\n-1200.50,604\r\n');
  });

  it('json keeps every figure by default and only the selected ones when columns are given', () => {
    expect(projectRows(tb, selectedColumns([]))).toBe(tb);
    expect(projectRows(tb, [{ key: 'debit' }, { key: 'gl_account.name' }]).rows[1]).toEqual({ debit: 0, gl_account: { id: 9, name: 'Revenue from goods' } });
  });
});
