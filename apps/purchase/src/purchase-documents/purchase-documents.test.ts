import { describe, expect, it } from 'vitest';
import type { PurchaseDocument } from '../db/entities.js';
import { daysPast, isoDay } from '@ledgerline/service-kit';
import { documentView } from './view.js';
import { sameVendor } from '../vendor-credits/vendor-credit-kind.js';
import { inventoryInCsv, inventoryInRow } from './list.js';

function doc(over: Partial<PurchaseDocument> = {}): PurchaseDocument {
  return {
    id: 7,
    orgId: 1,
    kind: 'bill',
    uid: '00000000-0000-4000-8000-000000000007',
    no: 'BILL202600007',
    vendorDocNo: 'V-1',
    creditedDocId: null,
    creditedDocNo: null,
    copyFromId: null,
    dateTaxable: null,
    fxRateDate: null,
    fxRateSource: null,
    description: null,
    rateFormat: null,
    taxNexus: null,
    paymentReference: null,
    bankAccountNumber: null,
    contactId: null,
    vendorCheck: null,
    rsn: null,
    advanceBillId: null,
    advanceBillNo: null,
    advances: null,
    taxDocuments: null,
    settledById: null,
    settledByNo: null,
    vendor: { id: 5, business_name: 'Smith, "the" Supplier', vat_no: 'CZ1' },
    vendorName: 'Smith, "the" Supplier',
    type: { id: 1 },
    currency: 'CZK',
    precision: 2,
    taxesIncluded: false,
    taxFxRate: '1.0000000000',
    dateIssued: '2026-03-15',
    dateDue: '2026-03-29',
    items: [],
    taxes: [],
    subtotalAmount: '250.0000',
    taxAmount: '48.0000',
    roundingAmount: '0.0000',
    totalAmount: '298.0000',
    prepaidAmount: '0.0000',
    amountPaid: '100.0000',
    amountDue: '198.0000',
    paymentStatus: 'partially_paid',
    paymentOrderId: null,
    paymentOrderOpen: false,
    isLocked: false,
    input: {},
    createdAt: new Date('2026-03-15T10:00:00Z'),
    editedAt: new Date('2026-03-15T10:00:00Z'),
    ...over,
  };
}

describe('inventory-in export rows', () => {
  it('maps a stored document to a row with JSON numbers', () => {
    expect(inventoryInRow(doc())).toMatchObject({
      document_type: 'purchase_bill',
      total_amount: 298,
      tax_amount: 48,
      amount_paid: 100,
      amount_due: 198,
      vendor_vat_no: 'CZ1',
      date_due: '2026-03-29',
      date_taxable: null,
    });
  });

  it('writes RFC 4180 csv: quoted fields with commas and quotes, amounts at the document precision', () => {
    const csv = inventoryInCsv([doc(), doc({ id: 8, kind: 'vendor_credit', precision: 0, totalAmount: '1210.4000', vendorName: 'Plain' })]);
    const lines = csv.split('\r\n');
    expect(lines[0].split(',')).toHaveLength(16);
    expect(lines[1]).toBe(
      'purchase_bill,7,BILL202600007,V-1,"Smith, ""the"" Supplier",CZ1,2026-03-15,,2026-03-29,CZK,250.00,48.00,298.00,100.00,198.00,partially_paid',
    );
    expect(lines[2]).toContain(',1210,');
    expect(lines[2]).toMatch(/^purchase_vendor_credit,8,/);
    expect(csv.endsWith('\r\n')).toBe(true);
  });
});

describe('document view', () => {
  it('answers figures as numbers and counts overdue days only while something is due', () => {
    const v = documentView(doc({ dateDue: '2020-01-01' }));
    expect(v).toMatchObject({ total_amount: 298, amount_due: 198, tax_fx_rate: 1, date_due: '2020-01-01' });
    expect(v.overdue_days).toBeGreaterThan(2000);
    expect(documentView(doc({ dateDue: '2020-01-01', amountDue: '0.0000' })).overdue_days).toBe(0);
    expect('credited_doc_id' in v).toBe(false);
    expect(documentView(doc({ kind: 'vendor_credit' }))).toMatchObject({ credited_doc_id: null });
  });
});

describe('sameVendor', () => {
  it('compares by id first, then VAT number, registration number, name', () => {
    expect(sameVendor({ id: 1, vat_no: 'A' }, { id: 1, vat_no: 'B' })).toBe(true);
    expect(sameVendor({ id: 1 }, { id: 2 })).toBe(false);
    expect(sameVendor({ vat_no: 'cz1 ' }, { id: 3, vat_no: 'CZ1' })).toBe(true);
    expect(sameVendor({ business_name: 'ACME' }, { business_name: 'acme' })).toBe(true);
    expect(sameVendor({}, { business_name: 'acme' })).toBe(false);
  });
});

describe('dates', () => {
  it('reads date columns as YYYY-MM-DD and counts days past', () => {
    expect(isoDay('2026-03-15')).toBe('2026-03-15');
    expect(isoDay(new Date(2026, 2, 15))).toBe('2026-03-15');
    expect(isoDay(null)).toBeNull();
    expect(daysPast('2026-03-01', '2026-03-15')).toBe(14);
    expect(daysPast('2026-03-20', '2026-03-15')).toBe(0);
    expect(daysPast(null)).toBe(0);
  });
});
