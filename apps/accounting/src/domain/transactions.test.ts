import { describe, expect, it } from 'vitest';
import type { AccountingTransactionRecord, GlAccount, LedgerRowRecord, LedgerTaxRowRecord } from '../db/entities.js';
import { transactionView } from './transactions.js';

const header = {
  id: 7,
  uid: '0b6c6d57-63a2-5a5c-9f2e-0e8f1b7f3f10',
  orgId: 1,
  bookId: 1,
  type: 'sales_invoice',
  sourceType: 'sales_invoice',
  sourceId: 3,
  sourceVersion: 1,
  entryKind: 'posting',
  sourceEventId: null,
  reversesId: null,
  accountingStatus: 'posted',
  no: 'INV2026001',
  vendorDocNo: null,
  creditedDocNo: null,
  paymentReference: null,
  description: null,
  dateIssued: '2026-03-01',
  dateDue: '2026-03-15',
  datePosting: '2026-03-01',
  dateTaxable: '2026-03-01',
  dateTaxApplied: null,
  currency: 'CZK',
  legalCurrency: 'CZK',
  precision: 2,
  transactionType: null,
  contact: null,
  bankAccount: null,
  taxNexus: null,
  paidRecord: null,
  fxRates: [],
  taxDeductionRatio: null,
  netDeductionRatio: null,
  amountPaid: null,
  amountDue: '0.30',
  total: '0.30',
  createdAt: new Date('2026-03-01T10:00:00Z'),
  editedAt: null,
} as unknown as AccountingTransactionRecord;

let nextId = 100;
const row = (ord: number, role: string, account: string, debit: string, credit: string) =>
  ({
    id: nextId++,
    orgId: 1,
    transactionId: 7,
    bookId: 1,
    ord,
    role,
    datePosting: '2026-03-01',
    glAccountNumber: account,
    debit,
    credit,
    description: null,
    currency: 'CZK',
    paymentAmount: null,
    paymentReference: null,
    contact: null,
    paidRecord: null,
    fxRates: null,
    taxDeductionRatio: null,
    netDeductionRatio: null,
  }) as LedgerRowRecord;

const accounts = new Map<string, GlAccount>();

describe('a ledger entry as the API shows it', () => {
  it('act_rows: one line per role and account, its figures summed in decimal; a lone row keeps its own', () => {
    // 0.1 + 0.2 in binary floating point is 0.30000000000000004
    const rows = [row(1, 'receivable', '311', '0.30', '0.00'), row(2, 'revenue', '604', '0.00', '0.10'), row(3, 'revenue', '604', '0.00', '0.20'), row(4, 'rounding', '548', '0.00', '0.00')];
    const view = transactionView(header, rows, [] as LedgerTaxRowRecord[], accounts, 'en-US');
    expect(view.act_rows.map((a) => [a.type, a.gl_account.number, a.debit, a.credit, a.id])).toEqual([
      ['receivable', '311', 0.3, 0, rows[0].id],
      ['revenue', '604', 0, 0.3, rows[1].id],
      ['rounding', '548', 0, 0, rows[3].id],
    ]);
    expect([view.debit, view.credit]).toEqual([0.3, 0.3]);
    expect(view.rows.map((r) => [r.debit, r.credit])).toEqual([[0.3, 0], [0, 0.1], [0, 0.2], [0, 0]]);
  });

  it('large figures: a sum of two rows is exact where the lone row is its stored value', () => {
    const rows = [row(1, 'receivable', '311', '90000000000000.05', '0.00'), row(2, 'revenue', '604', '0.00', '45000000000000.02'), row(3, 'revenue', '604', '0.00', '45000000000000.03')];
    const view = transactionView(header, rows, [], accounts, 'en-US');
    expect(view.act_rows.map((a) => [a.debit, a.credit])).toEqual([
      [90000000000000.05, 0],
      [0, 90000000000000.05],
    ]);
    expect([view.debit, view.credit]).toEqual([90000000000000.05, 90000000000000.05]);
  });
});
