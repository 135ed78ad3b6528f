import { describe, expect, it } from 'vitest';
import {
  EVENT_DATA_SCHEMAS,
  SUBJECTS,
  addressSchema,
  apiKeyUpdateSchema,
  bankIntegrationRequestSchema,
  bankIntegrationSchema,
  complianceEvaluateBodySchema,
  complianceRecordSchema,
  creditNoteRequestSchema,
  creditNoteSchema,
  currencyCode,
  financePaymentMatchedEventSchema,
  financePayoutPostedEventSchema,
  hostingIntegrationRequestSchema,
  invoiceRequestSchema,
  invoiceSchema,
  isoDate,
  parseRangeFilter,
  payoutListQuerySchema,
  payoutRequestSchema,
  problemSchema,
  salesDocumentListQuerySchema,
  tokenRequestSchema,
  trialBalanceExportBodySchema,
  trialBalanceExportQuerySchema,
  vendorBillRequestSchema,
  vendorCreditRequestSchema,
} from './index.js';

/** A credit note as an integrator would send it: nested, with derived figures it does not need to send. */
function realisticCreditNote(): Record<string, unknown> {
  return {
    no: 'CN2025000017',
    currency: 'EUR',
    currency_coef: 1,
    fx_rate: 25.12,
    tax_fx_rate: 25.12,
    date_issued: '2025-03-14',
    date_taxable: '2025-03-14',
    date_due: '2025-03-28',
    credited_doc_id: 1042,
    credited_doc_no: 'INV2025000311',
    precision: 2,
    taxes_included: false,
    culture: 'cs-CZ',
    document_locale: 'en-US',
    template_layout: 'default',
    notes: 'Returned goods, order 55-1182',
    memo: 'RMA 7781',
    payment_reference: '2025000017',
    payment_info: 'Refund to the account the invoice was paid from',
    bank_account: { id: 3, account_number: '2001234567/2010' },
    customer: {
      id: 77,
      business_name: 'Alfa Stavby s.r.o.',
      display_name: 'Alfa Stavby',
      reg_no: '27082440',
      vat_no: 'CZ27082440',
      tax_no: null,
      address: {
        name: 'Jana Nováková',
        company: 'Alfa Stavby s.r.o.',
        address1: 'Vinohradská 12',
        address2: null,
        postal_code: '120 00',
        city: 'Praha 2',
        region: 'Praha',
        country: 'CZ',
      },
      email: 'ucetni@alfa-stavby.cz',
      preferred_locale: 'cs-CZ',
      phone: '+420 777 123 456',
      peppol_id: '9929:CZ27082440',
    },
    billing_address: { company: 'Alfa Stavby s.r.o.', address1: 'Vinohradská 12', city: 'Praha 2', postal_code: '120 00', country: 'CZ' },
    shipping_address: { company: 'Alfa Stavby – sklad', address1: 'Průmyslová 4', city: 'Kladno', country: 'CZ' },
    delivery_condition: { id: 4, code: 'DAP', name: 'Delivered at place' },
    payment_term: { id: 1, code: 'NET14', name: '14 days' },
    org: {
      name: 'Ledgerline Demo a.s.',
      reg_no: '12345678',
      vat_no: 'CZ12345678',
      address: { address1: 'Na Příkopě 1', city: 'Praha 1', postal_code: '110 00', country: 'CZ' },
      info_legal: 'Zapsáno v OR vedeném MS v Praze, oddíl B, vložka 1234',
      config: { logo: 'https://cdn.example.com/logo.png', signature: null },
      website: 'https://demo.example.com',
      email: 'billing@demo.example.com',
    },
    type: { id: 2, name: 'Credit note', associated_payment_cards: [] },
    items: [
      {
        title: 'Cordless drill 18 V',
        description: 'Returned, unopened',
        sku: 'DR-18V',
        qty: 2,
        rate: 149.9,
        discount_explicit: 10,
        unit: { code: 'pcs', unece_code: 'H87', name: 'pieces' },
        item: { id: 501, sku: 'DR-18V', name: 'Cordless drill 18 V' },
        variant: { id: 9, name: 'Blue' },
        taxes: [{ tax_code: 'CZ-21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard' }],
        amount: 289.8,
      },
      {
        title: 'Drill bits set',
        qty: 1,
        rate: 24.5,
        taxes: [{ tax_rate: 21 }],
      },
    ],
    shipping_charges: [{ title: 'Courier', amount: 9.9, taxes: [{ tax_rate: 21 }] }],
    discounts: [{ title: 'Loyalty', value: 5, value_type: 'percentage', allocation_method: 'across', target_type: 'line_item' }],
    // derived figures a client may send back: accepted and ignored
    id: 123,
    uid: '6f1c9c2e-8a43-4c55-9d0b-2d8a6b1f0e11',
    created_at: '2025-03-14T09:12:00Z',
    subtotal_amount: 314.3,
    total_amount: 380.3,
    amount_paid: 0,
    amount_due: 380.3,
    payment_status: 'unpaid',
    taxes: [{ tax_rate: 21, tax_base: 314.3, tax_amount: 66 }],
    some_future_field: 'ignored',
  };
}

function storedCreditNote(): Record<string, unknown> {
  const line = (rate: number, base: number, amount: number) => ({ tax_rate: rate, tax_base: base, tax_amount: amount });
  return {
    ...realisticCreditNote(),
    id: 123,
    uid: '6f1c9c2e-8a43-4c55-9d0b-2d8a6b1f0e11',
    created_at: '2025-03-14T09:12:00.000Z',
    edited_at: null,
    is_locked: false,
    subtotal_amount: 314.3,
    total_amount: 380.3,
    amount_paid: 0,
    amount_due: 380.3,
    payment_status: 'unpaid',
    overdue_days: 0,
    items: [
      { id: 1, title: 'Cordless drill 18 V', qty: 2, rate: 149.9, discount_explicit: 10, discount_implicit: 14.49, rate_discounted: 137.655, amount: 275.31, taxes: [line(21, 275.31, 57.82)] },
      { id: 2, title: 'Drill bits set', qty: 1, rate: 24.5, discount_implicit: 1.23, amount: 23.27, taxes: [line(21, 23.27, 4.89)] },
    ],
    shipping_charges: [{ id: 1, title: 'Courier', amount: 9.9, discount_implicit: 0, taxes: [line(21, 9.9, 2.08)] }],
    discounts: [{ title: 'Loyalty', value: 5, value_type: 'percentage', allocation_method: 'across', target_type: 'line_item', amount: 15.72 }],
    taxes: [{ ...line(21, 308.48, 64.78), tax_amount_leg: 1627.27, tax_base_leg: 7749, currency_leg: 'CZK' }],
    urls: [],
  };
}

const errorPaths = (r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  (r.error?.issues ?? []).map((i) => i.path.join('.'));

describe('sales credit note', () => {
  it('accepts a realistic nested credit note and drops unknown fields', () => {
    const r = creditNoteRequestSchema.safeParse(realisticCreditNote());
    expect(r.error?.issues ?? []).toEqual([]);
    expect(r.data?.items).toHaveLength(2);
    expect(r.data).not.toHaveProperty('some_future_field');
    expect(r.data?.customer?.peppol_id).toBe('9929:CZ27082440');
  });

  it('validates the stored credit note (response shape)', () => {
    const r = creditNoteSchema.safeParse(storedCreditNote());
    expect(r.error?.issues ?? []).toEqual([]);
  });

  it('accepts a minimal credit note: customer, currency, date_issued and one item with qty and rate', () => {
    const r = creditNoteRequestSchema.safeParse({
      customer: { business_name: 'Beta' },
      currency: 'CZK',
      date_issued: '2025-01-31',
      items: [{ qty: 1, rate: 100 }],
    });
    expect(r.success).toBe(true);
  });

  it.each(['date_issued', 'items'])('requires %s', (field) => {
    const body = realisticCreditNote();
    delete body[field];
    const r = creditNoteRequestSchema.safeParse(body);
    expect(r.success).toBe(false);
    expect(errorPaths(r)).toContain(field);
  });

  it('leaves customer and currency to contact_id: the service requires them when no contact names them (decision 234)', () => {
    const body = realisticCreditNote();
    delete body.customer;
    delete body.currency;
    const r = creditNoteRequestSchema.safeParse({ ...body, contact_id: 7 });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ contact_id: 7 });
    expect(creditNoteRequestSchema.safeParse({ ...body, contact_id: 0 }).success).toBe(false);
  });

  it('requires at least one item, each with qty and rate', () => {
    expect(creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), items: [] }).success).toBe(false);
    const noRate = creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), items: [{ qty: 1 }] });
    expect(errorPaths(noRate)).toContain('items.0.rate');
    const zeroQty = creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), items: [{ qty: 0, rate: 1 }] });
    expect(errorPaths(zeroQty)).toContain('items.0.qty');
  });

  it('rejects a 3-letter country in any address', () => {
    const body = realisticCreditNote();
    body.billing_address = { city: 'Praha', country: 'CZE' };
    expect(errorPaths(creditNoteRequestSchema.safeParse(body))).toContain('billing_address.country');
    const nested = realisticCreditNote();
    (nested.customer as { address: { country: string } }).address.country = 'CZE';
    expect(errorPaths(creditNoteRequestSchema.safeParse(nested))).toContain('customer.address.country');
    expect(addressSchema.safeParse({ country: 'SK' }).success).toBe(true);
  });

  it.each(['EURO', 'eur', 'XYZ', '', 'E1R', 'XXX'])('rejects the non-ISO-4217 currency %j', (code) => {
    expect(creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), currency: code }).success).toBe(false);
    expect(currencyCode.safeParse(code).success).toBe(false);
  });

  it.each(['CZK', 'EUR', 'USD', 'JPY', 'KWD'])('accepts the ISO 4217 currency %s', (code) => {
    expect(currencyCode.safeParse(code).success).toBe(true);
  });

  it.each([
    ['qty', Infinity],
    ['qty', -Infinity],
    ['qty', NaN],
    ['rate', Infinity],
    ['rate', NaN],
    ['rate', '12.5'],
  ])('rejects a non-finite or non-number %s of %s', (field, value) => {
    const body = realisticCreditNote();
    (body.items as Record<string, unknown>[])[0][field] = value;
    expect(errorPaths(creditNoteRequestSchema.safeParse(body))).toContain(`items.0.${field}`);
  });

  it('rejects a number that overflows JSON parsing to Infinity', () => {
    const body = JSON.parse(JSON.stringify(realisticCreditNote()).replace('"rate":149.9', '"rate":1e999'));
    expect(creditNoteRequestSchema.safeParse(body).success).toBe(false);
  });

  it('rejects a precision outside 0–4 and a non-integer precision', () => {
    for (const precision of [-1, 5, 2.5]) {
      expect(creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), precision }).success).toBe(false);
    }
    expect(creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), precision: 0 }).success).toBe(true);
    expect(creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), precision: 4 }).success).toBe(true);
  });

  it('rejects impossible calendar dates', () => {
    expect(creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), date_issued: '2025-02-30' }).success).toBe(false);
    expect(creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), date_issued: '14.3.2025' }).success).toBe(false);
    expect(isoDate.safeParse('2024-02-29').success).toBe(true);
    expect(isoDate.safeParse('2025-02-29').success).toBe(false);
  });

  it('rejects a tax rate above 100 % and a malformed Peppol id', () => {
    const body = realisticCreditNote();
    (body.items as { taxes: { tax_rate: number }[] }[])[0].taxes[0].tax_rate = 121;
    expect(creditNoteRequestSchema.safeParse(body).success).toBe(false);
    const peppol = realisticCreditNote();
    (peppol.customer as Record<string, unknown>).peppol_id = 'CZ27082440';
    expect(creditNoteRequestSchema.safeParse(peppol).success).toBe(false);
  });

  it('rejects a discount with an unknown value_type and a percentage above 100', () => {
    expect(creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), discounts: [{ value: 5, value_type: 'percent' }] }).success).toBe(false);
    expect(creditNoteRequestSchema.safeParse({ ...realisticCreditNote(), discounts: [{ value: 150, value_type: 'percentage' }] }).success).toBe(false);
  });
});

describe('sales invoice', () => {
  it('is the credit-note shape without credited_doc_* and with buyer and order references', () => {
    const body = { ...realisticCreditNote(), buyer_reference: 'PO-7781', order_reference: 'SO-55' };
    const r = invoiceRequestSchema.safeParse(body);
    expect(r.success).toBe(true);
    expect(r.data).not.toHaveProperty('credited_doc_id');
    expect(r.data?.buyer_reference).toBe('PO-7781');
    expect(Object.keys(invoiceSchema.shape)).not.toContain('credited_doc_no');
    expect(Object.keys(creditNoteSchema.shape)).toContain('credited_doc_no');
  });

  it('parses list queries: coerced paging, repeatable payment_status, date range', () => {
    const q = salesDocumentListQuerySchema.parse({ take: '25', payment_status: 'unpaid', date_issued: '[2025-01-01;]' });
    expect(q).toMatchObject({ from: 0, take: 25, payment_status: ['unpaid'], date_issued: '[2025-01-01;]' });
    expect(salesDocumentListQuerySchema.safeParse({ take: '1001' }).success).toBe(false);
    expect(salesDocumentListQuerySchema.safeParse({ date_issued: '[2025-13-01;]' }).success).toBe(false);
    expect(salesDocumentListQuerySchema.safeParse({ payment_status: ['paid', 'settled'] }).success).toBe(false);
  });
});

describe('purchase documents', () => {
  const vendorCredit = () => ({
    type: { id: 5, name: 'Vendor credit' },
    vendor: { business_name: 'Gamma Supplies GmbH', vat_no: 'DE123456789', address: { country: 'DE' } },
    currency: 'EUR',
    date_issued: '2025-04-02',
    vendor_doc_no: 'GS-CR-0091',
    credited_doc_no: 'GS-2025-1177',
    items: [{ description: 'Damaged pallet', qty: 1, rate: 120, tax_deduction_ratio: 1, taxes: [{ tax_rate: 21 }] }],
  });

  it('accepts a vendor credit with its type', () => {
    expect(vendorCreditRequestSchema.safeParse(vendorCredit()).success).toBe(true);
  });

  it('rejects a vendor credit without type (required in the request)', () => {
    const { type: _type, ...withoutType } = vendorCredit();
    const r = vendorCreditRequestSchema.safeParse(withoutType);
    expect(r.success).toBe(false);
    expect(errorPaths(r)).toContain('type');
    expect(vendorCreditRequestSchema.safeParse({ ...vendorCredit(), type: null }).success).toBe(false);
  });

  it('vendor bill is the vendor-credit shape without credited_doc_*', () => {
    const r = vendorBillRequestSchema.parse({ ...vendorCredit(), credited_doc_id: 4 });
    expect(r).not.toHaveProperty('credited_doc_id');
    expect(r).not.toHaveProperty('credited_doc_no');
  });

  it('rejects a deduction ratio above 1', () => {
    const body = vendorCredit();
    body.items[0].tax_deduction_ratio = 1.5;
    expect(vendorCreditRequestSchema.safeParse(body).success).toBe(false);
  });
});

describe('finance', () => {
  const payout = () => ({
    currency: 'CZK',
    date_issued: '2025-05-01',
    psp_object_id: 'po_1PqA',
    lines: [
      { amount: 1210, paid_record: { type: 'sales_invoice', id: 17 } },
      { amount: -35.5, description: 'Platform fee', gl_account: { number: '568' } },
    ],
  });

  it('accepts a payout and requires a non-empty currency', () => {
    expect(payoutRequestSchema.safeParse(payout()).success).toBe(true);
    const empty = payoutRequestSchema.safeParse({ ...payout(), currency: '' });
    expect(empty.success).toBe(false);
    expect(errorPaths(empty)).toContain('currency');
    const { currency: _c, ...noCurrency } = payout();
    expect(payoutRequestSchema.safeParse(noCurrency).success).toBe(false);
    expect(payoutRequestSchema.safeParse({ ...payout(), currency: null }).success).toBe(false);
  });

  it('requires each payout line amount (not nullable)', () => {
    expect(payoutRequestSchema.safeParse({ ...payout(), lines: [{ description: 'x' }] }).success).toBe(false);
    expect(payoutRequestSchema.safeParse({ ...payout(), lines: [{ amount: null }] }).success).toBe(false);
  });

  it('rejects a paid record of an unknown type', () => {
    const body = payout();
    (body.lines[0].paid_record as { type: string }).type = 'invoice';
    expect(payoutRequestSchema.safeParse(body).success).toBe(false);
  });

  it('reads a repeatable psp_object_id', () => {
    expect(payoutListQuerySchema.parse({ psp_object_id: 'a' }).psp_object_id).toEqual(['a']);
    expect(payoutListQuerySchema.parse({ psp_object_id: ['a', 'b'] }).psp_object_id).toEqual(['a', 'b']);
  });
});

describe('compliance evaluate body', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it('accepts 1 to 1000 invoice ids', () => {
    expect(complianceEvaluateBodySchema.safeParse(ids(1)).success).toBe(true);
    expect(complianceEvaluateBodySchema.safeParse(ids(1000)).success).toBe(true);
  });

  it('rejects 0 and 1001 entries', () => {
    expect(complianceEvaluateBodySchema.safeParse([]).success).toBe(false);
    expect(complianceEvaluateBodySchema.safeParse(ids(1001)).success).toBe(false);
  });

  it('rejects entries that are not integer ids', () => {
    expect(complianceEvaluateBodySchema.safeParse([1.5]).success).toBe(false);
    expect(complianceEvaluateBodySchema.safeParse(['1']).success).toBe(false);
    expect(complianceEvaluateBodySchema.safeParse([0]).success).toBe(false);
    expect(complianceEvaluateBodySchema.safeParse({ ids: [1] }).success).toBe(false);
  });

  it('accepts a blocked record of an unknown invoice', () => {
    const record = {
      invoice_id: 999,
      compliance: {
        status: 'blocked',
        reporting_method: null,
        delivery_eligibility: null,
        required_action: null,
        allowed_actions: null,
        evaluated_at: '2025-06-01T10:00:00Z',
        blocking_reason: 'invoice_not_found',
      },
    };
    expect(complianceRecordSchema.safeParse(record).success).toBe(true);
  });
});

describe('accounting', () => {
  it('accepts trial-balance columns by key and rejects unknown keys', () => {
    expect(trialBalanceExportBodySchema.safeParse([{ columns: [{ key: 'gl_account.number', title: 'Account' }, { key: 'cb' }] }]).success).toBe(true);
    expect(trialBalanceExportBodySchema.safeParse([{ columns: null }]).success).toBe(true);
    expect(trialBalanceExportBodySchema.safeParse([]).success).toBe(true);
    expect(trialBalanceExportBodySchema.safeParse([{ columns: [{ key: 'balance' }] }]).success).toBe(false);
  });

  it('validates the range filters of POST /v1/reporting/financial/trial-balance/{book_id}/export/{format}', () => {
    expect(trialBalanceExportQuerySchema.safeParse({ date_posting: '[2025-01-01;2025-03-31]', account_number: '[3;4]' }).success).toBe(true);
    expect(trialBalanceExportQuerySchema.safeParse({ date_posting: '[2025-03-31;2025-01-01]' }).success).toBe(false);
    expect(trialBalanceExportQuerySchema.safeParse({ date_posting: '[;]' }).success).toBe(false);
    expect(parseRangeFilter('2025-01-01', 'date')).toEqual({ from: '2025-01-01', to: '2025-01-01' });
    expect(parseRangeFilter('[;399]', 'string')).toEqual({ from: undefined, to: '399' });
    expect(parseRangeFilter('[2025-01-01;', 'date')).toBeNull();
  });
});

describe('settings', () => {
  it('requires config (non-empty) and source for the hosting integration', () => {
    expect(hostingIntegrationRequestSchema.safeParse({ config: { auto_send_invoice: true }, source: 'MANUAL' }).success).toBe(true);
    expect(hostingIntegrationRequestSchema.safeParse({ config: {}, source: 'MANUAL' }).success).toBe(false);
    expect(hostingIntegrationRequestSchema.safeParse({ config: { auto_send_invoice: true }, source: 'manual' }).success).toBe(false);
    expect(hostingIntegrationRequestSchema.safeParse({}).success).toBe(false);
  });

  it('requires a non-empty bank integration type; the response has no config', () => {
    expect(bankIntegrationRequestSchema.safeParse({ type: 'sk.bank_a', config: { iban: 'SK31' } }).success).toBe(true);
    expect(bankIntegrationRequestSchema.safeParse({ type: '' }).success).toBe(false);
    expect(bankIntegrationRequestSchema.safeParse({ name: 'x' }).success).toBe(false);
    expect(Object.keys(bankIntegrationSchema.shape)).not.toContain('config');
  });

  it('rejects an API key update without changes and unknown scopes', () => {
    expect(apiKeyUpdateSchema.safeParse({}).success).toBe(false);
    expect(apiKeyUpdateSchema.safeParse({ scopes: ['sales:read', 'root'] }).success).toBe(false);
    expect(apiKeyUpdateSchema.safeParse({ expires_at: null }).success).toBe(true);
  });

  it('accepts the client credentials grant only', () => {
    expect(tokenRequestSchema.safeParse({ grant_type: 'client_credentials', client_id: 'cl_x', client_secret: 'cs_y' }).success).toBe(true);
    expect(tokenRequestSchema.safeParse({ grant_type: 'password', client_id: 'cl_x', client_secret: 'cs_y' }).success).toBe(false);
  });
});

describe('problem and events', () => {
  it('validates a problem document', () => {
    const p = {
      type: '/problems/validation-error',
      title: 'Validation failed',
      status: 400,
      detail: 'The request body is invalid',
      instance: '/v1/sales/credit-notes',
      code: 'validation_error',
      request_id: 'req_1',
      errors: [{ path: 'items[0].qty', message: 'Too small', code: 'too_small' }],
    };
    expect(problemSchema.safeParse(p).success).toBe(true);
  });

  it('has a data schema for every subject', () => {
    expect(Object.keys(EVENT_DATA_SCHEMAS).sort()).toEqual(Object.values(SUBJECTS).sort());
  });

  it('validates payment-matched and payout-posted data', () => {
    expect(
      financePaymentMatchedEventSchema.safeParse({
        payment_id: 5,
        source: 'bank_transaction',
        document: { type: 'sales_invoice', id: 17, no: 'INV2025000017' },
        amount: 1210,
        currency: 'CZK',
        date: '2025-05-02',
      }).success,
    ).toBe(true);
    expect(
      financePaymentMatchedEventSchema.safeParse({ payment_id: 5, source: 'cash', document: { type: 'sales_invoice', id: 1 }, amount: 1, currency: 'CZK', date: '2025-05-02' })
        .success,
    ).toBe(false);
    const payout = {
      id: 3,
      uid: '0b6f3d0e-5a1c-4f55-8e33-1b7f3c9a2d10',
      created_at: '2025-05-01T08:00:00Z',
      is_locked: false,
      currency: 'CZK',
      total_amount: 1174.5,
      lines: [{ amount: 1210 }, { amount: -35.5 }],
      version: 2,
      replaces_version: 1,
    };
    expect(financePayoutPostedEventSchema.safeParse(payout).success).toBe(true);
    expect(financePayoutPostedEventSchema.safeParse({ ...payout, version: undefined }).success).toBe(false);
  });

  it('sales.credit_note.posted carries the stored credit note', () => {
    expect(EVENT_DATA_SCHEMAS[SUBJECTS.salesCreditNotePosted].safeParse(storedCreditNote()).success).toBe(true);
  });
});
