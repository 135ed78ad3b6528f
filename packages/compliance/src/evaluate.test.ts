import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RULES,
  PEPPOL_CHECKS,
  complianceRecord,
  evaluateCompliance,
  failedPeppolChecks,
  invoiceNotFound,
  parseRuleTable,
  type ComplianceInvoice,
  type ComplianceOrganisation,
  type RuleTable,
} from './index.js';

const AT = new Date('2027-03-01T10:00:00.000Z');

/** A seller with every Peppol datum in place. */
function org(country: string, over: Partial<ComplianceOrganisation> = {}): ComplianceOrganisation {
  return {
    country,
    is_vat_payer: true,
    peppol_id: '9950:2020123456',
    vat_no: `${country === 'GR' ? 'EL' : country}2020123456`,
    bank_account: { iban: 'SK3112000000198742637541' },
    ...over,
  };
}

/** A B2B invoice to a buyer in `country` with every Peppol datum in place. */
function invoice(country: string, date: string, over: Partial<ComplianceInvoice> = {}): ComplianceInvoice {
  return {
    id: 1,
    date_issued: date,
    date_due: '2027-03-15',
    amount_due: '1210.00',
    customer: { vat_no: `${country}7020000000`, peppol_id: '9950:7020000000', address: { country } },
    buyer_reference: 'PO-7781',
    order_reference: null,
    bank_account: { account_number: '2001234567/8360' },
    ...over,
  };
}
const b2c = (country: string, date: string) => invoice(country, date, { customer: { address: { country } } });

const ALL_OK = { send_email: true, download_pdf: true, send_via_peppol: true, submit_to_tax_authority: false };
const VIA_PEPPOL = { send_email: false, download_pdf: true, send_via_peppol: true, submit_to_tax_authority: false };
const BLOCKED = { send_email: false, download_pdf: true, send_via_peppol: false, submit_to_tax_authority: false };

describe('rule table rows (first match wins)', () => {
  interface Case {
    name: string;
    rule: string;
    seller: ComplianceOrganisation;
    inv: ComplianceInvoice;
    expect: Record<string, unknown>;
  }
  const evaluated = (reporting: string, eligibility: string, action: string, allowed: object) => ({
    status: 'evaluated',
    reporting_method: reporting,
    delivery_eligibility: eligibility,
    required_action: action,
    allowed_actions: allowed,
    blocking_reason: null,
  });
  const platform = (name: string) => ({
    status: 'blocked',
    reporting_method: null,
    delivery_eligibility: null,
    required_action: null,
    allowed_actions: BLOCKED,
    blocking_reason: `national_platform_required:${name}`,
  });
  const dflt = (peppol = true) => evaluated('no_reporting', 'eligible', 'none', { ...ALL_OK, send_via_peppol: peppol });

  const cases: Case[] = [
    // Slovakia
    { name: 'SK domestic B2B of a VAT payer on 2027-02-01 with complete Peppol data', rule: 'sk-2027-peppol-reporting', seller: org('SK'), inv: invoice('SK', '2027-02-01'), expect: evaluated('reporting_by_delivery', 'eligible_via_required_channel', 'send_via_peppol', VIA_PEPPOL) },
    { name: 'SK on the first day of the mandate (2027-01-01)', rule: 'sk-2027-peppol-reporting', seller: org('SK'), inv: invoice('SK', '2027-01-01'), expect: { status: 'evaluated', reporting_method: 'reporting_by_delivery' } },
    { name: 'SK dated 2026 → default (no reporting)', rule: 'default', seller: org('SK'), inv: invoice('SK', '2026-12-31'), expect: dflt() },
    { name: 'SK seller not a VAT payer → default', rule: 'default', seller: org('SK', { is_vat_payer: false }), inv: invoice('SK', '2027-02-01'), expect: dflt() },
    { name: 'SK B2C → default, Peppol not allowed without a buyer Peppol id', rule: 'default', seller: org('SK'), inv: b2c('SK', '2027-02-01'), expect: dflt(false) },
    { name: 'SK seller, CZ buyer (cross-border) → default', rule: 'default', seller: org('SK'), inv: invoice('CZ', '2027-02-01'), expect: dflt() },
    // Belgium
    { name: 'BE domestic B2B from 2026-01-01 → Peppol required, no reporting', rule: 'be-2026-peppol', seller: org('BE'), inv: invoice('BE', '2026-01-01'), expect: evaluated('no_reporting', 'eligible_via_required_channel', 'send_via_peppol', VIA_PEPPOL) },
    { name: 'BE before 2026 → default', rule: 'default', seller: org('BE'), inv: invoice('BE', '2025-12-31'), expect: dflt() },
    { name: 'BE seller not a VAT payer still under the mandate', rule: 'be-2026-peppol', seller: org('BE', { is_vat_payer: false }), inv: invoice('BE', '2026-06-01'), expect: { status: 'evaluated', required_action: 'send_via_peppol' } },
    // National platforms
    { name: 'PL domestic B2B from 2026-04-01 → KSeF', rule: 'pl-ksef', seller: org('PL'), inv: invoice('PL', '2026-04-01'), expect: platform('KSeF') },
    { name: 'PL before 2026-04-01 → default', rule: 'default', seller: org('PL'), inv: invoice('PL', '2026-03-31'), expect: dflt() },
    { name: 'PL B2C → default', rule: 'default', seller: org('PL'), inv: b2c('PL', '2026-05-01'), expect: dflt(false) },
    { name: 'IT domestic B2B → SDI', rule: 'it-sdi', seller: org('IT'), inv: invoice('IT', '2019-01-01'), expect: platform('SDI') },
    { name: 'IT domestic B2C → SDI too', rule: 'it-sdi', seller: org('IT'), inv: b2c('IT', '2024-05-01'), expect: platform('SDI') },
    { name: 'IT before 2019 → default', rule: 'default', seller: org('IT'), inv: invoice('IT', '2018-12-31'), expect: dflt() },
    { name: 'RO domestic B2B from 2024-01-01 → e-Factura', rule: 'ro-efactura', seller: org('RO'), inv: invoice('RO', '2024-01-01'), expect: platform('e-Factura') },
    { name: 'RO before 2024 → default', rule: 'default', seller: org('RO'), inv: invoice('RO', '2023-12-31'), expect: dflt() },
    { name: 'GR domestic B2B from 2026-10-01 → myDATA', rule: 'gr-mydata', seller: org('GR'), inv: invoice('GR', '2026-10-01'), expect: platform('myDATA') },
    { name: 'GR before 2026-10-01 → default', rule: 'default', seller: org('GR'), inv: invoice('GR', '2026-09-30'), expect: dflt() },
    { name: 'HR domestic B2B from 2026-01-01 → fiscalization', rule: 'hr-fiscalization', seller: org('HR'), inv: invoice('HR', '2026-01-01'), expect: platform('fiscalization') },
    { name: 'HR before 2026 → default', rule: 'default', seller: org('HR'), inv: invoice('HR', '2025-12-31'), expect: dflt() },
    { name: 'FR large enterprise from 2026-09-01 → PA', rule: 'fr-pa-large', seller: org('FR', { is_large_enterprise: true }), inv: invoice('FR', '2026-09-01'), expect: platform('PA') },
    { name: 'FR large enterprise before 2026-09-01 → default', rule: 'default', seller: org('FR', { is_large_enterprise: true }), inv: invoice('FR', '2026-08-31'), expect: dflt() },
    { name: 'FR other firm on 2026-10-01 → default', rule: 'default', seller: org('FR'), inv: invoice('FR', '2026-10-01'), expect: dflt() },
    { name: 'FR other firm from 2027-09-01 → PA', rule: 'fr-pa', seller: org('FR'), inv: invoice('FR', '2027-09-01'), expect: platform('PA') },
    // Default
    { name: 'CZ domestic → no reporting, e-mail and PDF allowed', rule: 'default', seller: org('CZ'), inv: invoice('CZ', '2027-02-01'), expect: dflt() },
    { name: 'CZ domestic without a buyer Peppol id → Peppol not offered', rule: 'default', seller: org('CZ'), inv: invoice('CZ', '2027-02-01', { customer: { vat_no: 'CZ27082440', address: { country: 'CZ' } } }), expect: dflt(false) },
  ];

  it.each(cases)('$name', ({ seller, inv, rule, expect: want }) => {
    const r = evaluateCompliance(inv, seller, DEFAULT_RULES, AT);
    expect(r).toMatchObject(want);
    expect(r.rule_id).toBe(rule);
    expect(r.evaluated_at).toBe(AT.toISOString());
  });

  it('covers every row of the shipped table', () => {
    const covered = new Set(cases.map((c) => c.rule));
    expect(DEFAULT_RULES.map((r) => r.id).filter((id) => !covered.has(id))).toEqual([]);
  });
});

describe('the examples of the brief', () => {
  it('CZ domestic invoice → evaluated / no_reporting / eligible / none with e-mail and PDF allowed', () => {
    const cz = invoice('CZ', '2026-11-20', { customer: { vat_no: 'CZ27082440', address: { country: 'CZ' } }, buyer_reference: null });
    expect(complianceRecord(7, evaluateCompliance(cz, org('CZ', { peppol_id: null }), DEFAULT_RULES, AT))).toEqual({
      invoice_id: 7,
      compliance: {
        status: 'evaluated',
        reporting_method: 'no_reporting',
        delivery_eligibility: 'eligible',
        required_action: 'none',
        allowed_actions: { send_email: true, download_pdf: true, send_via_peppol: false, submit_to_tax_authority: false },
        evaluated_at: '2027-03-01T10:00:00.000Z',
        blocking_reason: null,
      },
    });
  });

  it('SK B2B dated 2027-02-01 without the buyer Peppol id → blocked naming PEPPOL-EN16931-R010', () => {
    const inv = invoice('SK', '2027-02-01', { customer: { vat_no: 'SK7020000000', address: { country: 'SK' } } });
    const r = evaluateCompliance(inv, org('SK'), DEFAULT_RULES, AT);
    expect(r).toMatchObject({
      status: 'blocked',
      blocking_reason: 'PEPPOL-EN16931-R010',
      required_action: 'send_via_peppol',
      reporting_method: 'reporting_by_delivery',
      allowed_actions: { send_email: false, download_pdf: true, send_via_peppol: false, submit_to_tax_authority: false },
    });
  });

  it('Polish domestic B2B → blocked with national_platform_required:KSeF', () => {
    expect(evaluateCompliance(invoice('PL', '2026-11-20'), org('PL'), DEFAULT_RULES, AT)).toMatchObject({
      status: 'blocked',
      blocking_reason: 'national_platform_required:KSeF',
    });
  });

  it('names every failed check, in order, when several are missing', () => {
    const inv = invoice('SK', '2027-02-01', { customer: { vat_no: 'SK7020000000', address: { country: 'SK' } }, buyer_reference: null, date_due: null });
    const r = evaluateCompliance(inv, org('SK', { peppol_id: null }), DEFAULT_RULES, AT);
    expect(r.failed_checks).toEqual(['PEPPOL-EN16931-R020', 'PEPPOL-EN16931-R010', 'PEPPOL-EN16931-R003', 'BR-CO-25']);
    expect(r.blocking_reason).toBe('PEPPOL-EN16931-R020, PEPPOL-EN16931-R010, PEPPOL-EN16931-R003, BR-CO-25');
  });
});

describe('Peppol BIS Billing 3.0 checks block where send_via_peppol is required', () => {
  const base = () => invoice('SK', '2027-02-01');
  const cases: Array<{ rule: string; inv?: Partial<ComplianceInvoice>; seller?: Partial<ComplianceOrganisation> }> = [
    { rule: 'PEPPOL-EN16931-R020', seller: { peppol_id: null } },
    { rule: 'PEPPOL-EN16931-R020', seller: { peppol_id: '2020123456' } },
    { rule: 'PEPPOL-EN16931-R010', inv: { customer: { vat_no: 'SK7020000000', peppol_id: 'no-scheme', address: { country: 'SK' } } } },
    { rule: 'PEPPOL-EN16931-R003', inv: { buyer_reference: null, order_reference: '  ' } },
    { rule: 'BR-S-02', seller: { vat_no: null } },
    { rule: 'BR-CO-09', seller: { vat_no: '2020123456' } },
    { rule: 'BR-CO-25', inv: { date_due: null, payment_term: null } },
    { rule: 'BR-61', inv: { bank_account: null }, seller: { bank_account: null } },
  ];
  it.each(cases)('$rule', ({ rule, inv, seller }) => {
    const r = evaluateCompliance({ ...base(), ...inv }, org('SK', seller), DEFAULT_RULES, AT);
    expect(r.status).toBe('blocked');
    expect(r.blocking_reason).toBe(rule);
  });

  it('passes with an order reference instead of a buyer reference, payment terms instead of a due date, the organisation IBAN', () => {
    const r = evaluateCompliance(
      { ...base(), buyer_reference: null, order_reference: 'SO-55', date_due: null, payment_term: { code: 'NET14' }, bank_account: null },
      org('SK'),
      DEFAULT_RULES,
      AT,
    );
    expect(r.status).toBe('evaluated');
  });

  it('needs no due date or bank account when nothing is due, nor a bank account for a card payment', () => {
    expect(evaluateCompliance({ ...base(), amount_due: 0, date_due: null, bank_account: null }, org('SK', { bank_account: null }), DEFAULT_RULES, AT).status).toBe('evaluated');
    expect(
      evaluateCompliance({ ...base(), bank_account: null, type: { associated_payment_cards: ['visa'] } }, org('SK', { bank_account: null }), DEFAULT_RULES, AT).status,
    ).toBe('evaluated');
  });

  it('BR-AE-02 and BR-IC-02: a reverse-charge or intra-EU supply needs the buyer VAT id', () => {
    const noVat = { ...base(), customer: { peppol_id: '9950:7020000000', address: { country: 'SK' } } };
    expect(failedPeppolChecks({ ...noVat, taxes: [{ tax_code: 'AE' }] }, org('SK'))).toEqual(['BR-AE-02']);
    expect(failedPeppolChecks({ ...noVat, items: [{ taxes: [{ rate_type: 'reverse_charge' }] }] }, org('SK'))).toEqual(['BR-AE-02']);
    expect(failedPeppolChecks({ ...noVat, customer: { peppol_id: '9950:1', address: { country: 'AT' } } }, org('SK'))).toEqual(['BR-IC-02']);
    expect(failedPeppolChecks({ ...noVat, taxes: [{ tax_code: 'K' }] }, org('SK'))).toEqual(['BR-IC-02']);
    expect(failedPeppolChecks(noVat, org('SK'))).toEqual([]);
  });

  it('does not apply the checks where Peppol is not required', () => {
    const r = evaluateCompliance({ ...invoice('CZ', '2027-02-01'), buyer_reference: null, date_due: null }, org('CZ', { peppol_id: null }), DEFAULT_RULES, AT);
    expect(r.status).toBe('evaluated');
  });

  it('every shipped check is exercised above', () => {
    const named = new Set([...cases.map((c) => c.rule), 'BR-AE-02', 'BR-IC-02']);
    expect(PEPPOL_CHECKS.map((c) => c.id).filter((id) => !named.has(id))).toEqual([]);
  });
});

describe('facts and the table as data', () => {
  it('takes the buyer country from the billing address, then from the VAT prefix (EL = GR)', () => {
    const viaBilling = invoice('PL', '2026-11-20', { customer: { vat_no: 'PL1234567890' }, billing_address: { country: 'pl' } });
    expect(evaluateCompliance(viaBilling, org('PL'), DEFAULT_RULES, AT).blocking_reason).toBe('national_platform_required:KSeF');
    const viaVat = invoice('GR', '2026-11-20', { customer: { vat_no: 'EL094259216' } });
    expect(evaluateCompliance(viaVat, org('GR'), DEFAULT_RULES, AT).blocking_reason).toBe('national_platform_required:myDATA');
  });

  it('a rule edit is a data change: a new row and a closing date change the outcome without code', () => {
    const table: RuleTable = parseRuleTable([
      {
        id: 'cz-2030-peppol',
        description: 'hypothetical Czech mandate',
        when: { seller_country: ['CZ'], domestic: true, b2b: true, valid_from: '2030-01-01', valid_until: '2031-01-01' },
        then: { kind: 'deliver', reporting_method: 'no_reporting', delivery_eligibility: 'eligible_via_required_channel', required_action: 'send_via_peppol', allowed_actions: { send_email: false, download_pdf: true, send_via_peppol: true, submit_to_tax_authority: false } },
      },
      ...DEFAULT_RULES,
    ]);
    expect(evaluateCompliance(invoice('CZ', '2030-06-01'), org('CZ'), table, AT).rule_id).toBe('cz-2030-peppol');
    expect(evaluateCompliance(invoice('CZ', '2031-01-01'), org('CZ'), table, AT).rule_id).toBe('default');
  });

  it('refuses a table without a default row or with duplicate ids', () => {
    expect(() => parseRuleTable(DEFAULT_RULES.slice(0, -1))).toThrow(/default/);
    expect(() => parseRuleTable([...DEFAULT_RULES.slice(0, 1), ...DEFAULT_RULES])).toThrow(/unique/);
  });

  it('an unknown invoice is a blocked record, not an error', () => {
    expect(complianceRecord(99, invoiceNotFound(AT))).toEqual({
      invoice_id: 99,
      compliance: {
        status: 'blocked',
        reporting_method: null,
        delivery_eligibility: null,
        required_action: null,
        allowed_actions: null,
        evaluated_at: AT.toISOString(),
        blocking_reason: 'invoice_not_found',
      },
    });
  });
});
