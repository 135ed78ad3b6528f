import Decimal from 'decimal.js';
import type { ComplianceRule, RuleCondition, RuleTable } from './rules.js';
import { DEFAULT_RULES } from './rules.js';
import { EU_COUNTRIES, statedTaxCategory, type TaxCategory } from '@ledgerline/core/tax-category';

// ------------------------------------------------------------------ inputs

export interface TaxMark {
  tax_code?: string | null;
  rate_type?: string | null;
  tax_category?: string | null;
  tax_details?: Record<string, unknown> | null;
}

/** What the evaluator reads of a sales invoice (the stored document body has all of it). */
export interface ComplianceInvoice {
  id: number;
  /** ISO date, `YYYY-MM-DD`. */
  date_issued: string;
  date_due?: string | null;
  payment_term?: { id?: number | null; code?: string | null; name?: string | null; name_org?: string | null } | null;
  /** Decimal (string or JSON number); compared exactly. */
  amount_due?: string | number | null;
  customer?: {
    vat_no?: string | null;
    peppol_id?: string | null;
    address?: { country?: string | null } | null;
  } | null;
  billing_address?: { country?: string | null } | null;
  buyer_reference?: string | null;
  order_reference?: string | null;
  bank_account?: { account_number?: string | null } | null;
  /** Payment cards on the transaction type mean the invoice is paid by card, not credit transfer. */
  type?: { associated_payment_cards?: string[] | null } | null;
  taxes?: TaxMark[] | null;
  items?: Array<{ taxes?: TaxMark[] | null }> | null;
}

/** The organisation profile fields the rules need (sales keeps them in its replica). */
export interface ComplianceOrganisation {
  country?: string | null;
  is_vat_payer?: boolean | null;
  peppol_id?: string | null;
  vat_no?: string | null;
  bank_account?: { account_number?: string | null; iban?: string | null } | null;
  /** Large enterprise (the French mandate starts a year earlier for them); absent means no. */
  is_large_enterprise?: boolean | null;
}

// ------------------------------------------------------------------ output

export type ComplianceStatus = 'pending' | 'evaluated' | 'blocked';

export interface AllowedActions {
  send_email: boolean;
  download_pdf: boolean;
  send_via_peppol: boolean;
  submit_to_tax_authority: boolean;
}

/** Spec §2.8 `compliance` object, plus the matched rule and every failed Peppol check (stored, not on the wire). */
export interface ComplianceResult {
  status: ComplianceStatus;
  reporting_method: 'no_reporting' | 'reporting_by_delivery' | null;
  delivery_eligibility: 'eligible' | 'eligible_via_required_channel' | null;
  required_action: 'none' | 'send_via_peppol' | null;
  allowed_actions: AllowedActions | null;
  evaluated_at: string;
  blocking_reason: string | null;
  rule_id: string | null;
  failed_checks: string[];
}

// ------------------------------------------------------------------ facts

/** EU member states (Greece's VAT prefix is EL): the one list, in @ledgerline/core. */
export { EU_COUNTRIES };

const PEPPOL_ID = /^[0-9]{4}:\S+$/;
const VAT_WITH_PREFIX = /^[A-Z]{2}[0-9A-Z+*.]{2,13}$/;

const blank = (v: string | null | undefined): boolean => v === null || v === undefined || v.trim() === '';

function countryOf(code: string | null | undefined): string | null {
  if (blank(code)) return null;
  const c = code!.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(c) ? c : null;
}

/** The country a VAT id's prefix names (EL is Greece), or null. */
function vatCountry(vat: string | null | undefined): string | null {
  if (blank(vat)) return null;
  const m = /^([A-Za-z]{2})/.exec(vat!.trim().replace(/\s+/g, ''));
  if (!m) return null;
  const p = m[1].toUpperCase();
  return p === 'EL' ? 'GR' : p;
}

export interface InvoiceFacts {
  seller: string | null;
  buyer: string | null;
  b2b: boolean;
  domestic: boolean;
  date: string;
  sellerVatPayer: boolean;
  sellerLarge: boolean;
  buyerHasPeppolId: boolean;
}

/**
 * S is the organisation's country (else its VAT prefix); B is the customer's address country,
 * else the billing address country, else the customer's VAT prefix. B2B = the buyer has a VAT id.
 */
export function invoiceFacts(invoice: ComplianceInvoice, org: ComplianceOrganisation): InvoiceFacts {
  const seller = countryOf(org.country) ?? vatCountry(org.vat_no);
  const buyer =
    countryOf(invoice.customer?.address?.country) ?? countryOf(invoice.billing_address?.country) ?? vatCountry(invoice.customer?.vat_no);
  return {
    seller,
    buyer,
    b2b: !blank(invoice.customer?.vat_no),
    domestic: seller !== null && buyer !== null && seller === buyer,
    date: invoice.date_issued.slice(0, 10),
    sellerVatPayer: org.is_vat_payer ?? true,
    sellerLarge: org.is_large_enterprise ?? false,
    buyerHasPeppolId: !blank(invoice.customer?.peppol_id),
  };
}

export function ruleMatches(when: RuleCondition, f: InvoiceFacts): boolean {
  if (when.seller_country && (f.seller === null || !when.seller_country.includes(f.seller))) return false;
  if (when.domestic !== undefined && f.domestic !== when.domestic) return false;
  if (when.b2b !== undefined && f.b2b !== when.b2b) return false;
  if (when.seller_vat_payer !== undefined && f.sellerVatPayer !== when.seller_vat_payer) return false;
  if (when.seller_large_enterprise !== undefined && f.sellerLarge !== when.seller_large_enterprise) return false;
  if (when.valid_from && f.date < when.valid_from) return false;
  if (when.valid_until && f.date >= when.valid_until) return false;
  return true;
}

/** The first row of the table whose conditions hold. */
export function matchRule(table: RuleTable, f: InvoiceFacts): ComplianceRule {
  const rule = table.find((r) => ruleMatches(r.when, f));
  // A validated table ends with an unconditional default, so this cannot happen with one.
  if (!rule) throw new RangeError('The compliance rule table has no row for this invoice (it needs a default row)');
  return rule;
}

// ------------------------------------------------------------------ Peppol BIS Billing 3.0 data checks

export interface PeppolCheck {
  /** The Peppol / EN 16931 rule id, used as `blocking_reason`. */
  id: string;
  description: string;
  /** True when the invoice satisfies the rule (or the rule does not apply to it). */
  passes: (invoice: ComplianceInvoice, org: ComplianceOrganisation, f: InvoiceFacts) => boolean;
}

function taxMarks(invoice: ComplianceInvoice): TaxMark[] {
  return [...(invoice.taxes ?? []), ...(invoice.items ?? []).flatMap((i) => i.taxes ?? [])];
}
/** A tax line's stated category is this one (`statedTaxCategory`: its tax_category, flags, code or rate type). */
const markIs = (m: TaxMark, category: TaxCategory) => statedTaxCategory(m) === category;

/**
 * The EN 16931 category a tax line names by its code or rate type: AE (reverse charge), K
 * (intra-EU supply) or none. The checks above and the Peppol documents read tax lines alike.
 */
export function markedVatCategory(m: TaxMark): 'AE' | 'K' | null {
  const stated = statedTaxCategory(m);
  return stated === 'AE' || stated === 'K' ? stated : null;
}

function amountDue(invoice: ComplianceInvoice): Decimal {
  try {
    return new Decimal(invoice.amount_due ?? 0);
  } catch {
    return new Decimal(0);
  }
}

/** Credit transfer is the payment means unless nothing is due or the transaction type is a card payment. */
function paidByCreditTransfer(invoice: ComplianceInvoice): boolean {
  if (!amountDue(invoice).gt(0)) return false;
  return (invoice.type?.associated_payment_cards ?? []).length === 0;
}

/** In the order a user fixes them; each failing one is named in `blocking_reason`. */
export const PEPPOL_CHECKS: PeppolCheck[] = [
  {
    id: 'PEPPOL-EN16931-R020',
    description: 'Seller electronic address (BT-34) with its scheme: the organisation needs a Peppol id scheme:value',
    passes: (_i, org) => PEPPOL_ID.test((org.peppol_id ?? '').trim()),
  },
  {
    id: 'PEPPOL-EN16931-R010',
    description: 'Buyer electronic address (BT-49) with its scheme: the customer needs a Peppol id scheme:value',
    passes: (i) => PEPPOL_ID.test((i.customer?.peppol_id ?? '').trim()),
  },
  {
    id: 'PEPPOL-EN16931-R003',
    description: 'A buyer reference (BT-10) or a purchase order reference (BT-13) must be present',
    passes: (i) => !blank(i.buyer_reference) || !blank(i.order_reference),
  },
  {
    id: 'BR-S-02',
    description: 'An invoice with standard-rated VAT needs the seller VAT identifier (BT-31)',
    passes: (_i, org) => !blank(org.vat_no),
  },
  {
    id: 'BR-CO-09',
    description: 'The seller VAT identifier must start with an ISO 3166 country prefix (EL for Greece)',
    passes: (_i, org) => blank(org.vat_no) || VAT_WITH_PREFIX.test(org.vat_no!.trim().replace(/\s+/g, '').toUpperCase()),
  },
  {
    id: 'BR-AE-02',
    description: 'A reverse-charge invoice needs the buyer VAT identifier (BT-48)',
    passes: (i, _o, f) => f.b2b || !taxMarks(i).some((m) => markIs(m, 'AE')),
  },
  {
    id: 'BR-IC-02',
    description: 'An intra-EU supply needs the buyer VAT identifier (BT-48)',
    passes: (i, _o, f) => {
      if (f.b2b) return true;
      const crossBorderEu = f.seller !== null && f.buyer !== null && f.seller !== f.buyer && EU_COUNTRIES.has(f.seller) && EU_COUNTRIES.has(f.buyer);
      return !(crossBorderEu || taxMarks(i).some((m) => markIs(m, 'K')));
    },
  },
  {
    id: 'BR-CO-25',
    description: 'When an amount is due, a due date (BT-9) or payment terms (BT-20) must be present',
    passes: (i) => {
      if (!amountDue(i).gt(0)) return true;
      const term = i.payment_term;
      return !blank(i.date_due) || (!!term && (!blank(term.code) || !blank(term.name) || !blank(term.name_org) || term.id != null));
    },
  },
  {
    id: 'BR-61',
    description: 'Payment by credit transfer needs the seller payment account identifier (BT-84)',
    passes: (i, org) =>
      !paidByCreditTransfer(i) || !blank(i.bank_account?.account_number) || !blank(org.bank_account?.iban) || !blank(org.bank_account?.account_number),
  },
];

/** The ids of the Peppol checks the invoice fails, in check order. */
export function failedPeppolChecks(invoice: ComplianceInvoice, org: ComplianceOrganisation, facts = invoiceFacts(invoice, org)): string[] {
  return PEPPOL_CHECKS.filter((c) => !c.passes(invoice, org, facts)).map((c) => c.id);
}

// ------------------------------------------------------------------ the evaluator

/**
 * Evaluates one invoice: a pure function of the invoice, the organisation profile, the rule
 * table and the evaluation time.
 *
 * `pending` is never produced today: it is reserved for evaluations that wait on something
 * outside (a Peppol participant lookup that has not answered), and no such lookup exists yet;
 * every input this function needs is local, so every evaluation completes at once.
 */
export function evaluateCompliance(
  invoice: ComplianceInvoice,
  org: ComplianceOrganisation,
  table: RuleTable = DEFAULT_RULES,
  at: Date = new Date(),
): ComplianceResult {
  const facts = invoiceFacts(invoice, org);
  const rule = matchRule(table, facts);
  const evaluated_at = at.toISOString();
  const outcome = rule.then;
  const peppolAllowed = (v: boolean | 'if_buyer_peppol_id') => (v === 'if_buyer_peppol_id' ? facts.buyerHasPeppolId : v);
  const allowed: AllowedActions = {
    send_email: outcome.allowed_actions.send_email,
    download_pdf: outcome.allowed_actions.download_pdf,
    send_via_peppol: peppolAllowed(outcome.allowed_actions.send_via_peppol),
    submit_to_tax_authority: outcome.allowed_actions.submit_to_tax_authority,
  };

  if (outcome.kind === 'block') {
    return {
      status: 'blocked',
      reporting_method: null,
      delivery_eligibility: null,
      required_action: null,
      allowed_actions: allowed,
      evaluated_at,
      blocking_reason: outcome.blocking_reason,
      rule_id: rule.id,
      failed_checks: [],
    };
  }

  const failed = outcome.required_action === 'send_via_peppol' ? failedPeppolChecks(invoice, org, facts) : [];
  if (failed.length > 0) {
    // The channel is still required; it may not be used until the data is complete.
    return {
      status: 'blocked',
      reporting_method: outcome.reporting_method,
      delivery_eligibility: outcome.delivery_eligibility,
      required_action: outcome.required_action,
      allowed_actions: { ...allowed, send_email: false, send_via_peppol: false, submit_to_tax_authority: false },
      evaluated_at,
      blocking_reason: failed.join(', '),
      rule_id: rule.id,
      failed_checks: failed,
    };
  }
  return {
    status: 'evaluated',
    reporting_method: outcome.reporting_method,
    delivery_eligibility: outcome.delivery_eligibility,
    required_action: outcome.required_action,
    allowed_actions: allowed,
    evaluated_at,
    blocking_reason: null,
    rule_id: rule.id,
    failed_checks: [],
  };
}

/** The record of an id that names no invoice of the organisation (not a failure of the batch). */
export function invoiceNotFound(at: Date = new Date()): ComplianceResult {
  return {
    status: 'blocked',
    reporting_method: null,
    delivery_eligibility: null,
    required_action: null,
    allowed_actions: null,
    evaluated_at: at.toISOString(),
    blocking_reason: 'invoice_not_found',
    rule_id: null,
    failed_checks: [],
  };
}

/** Spec §2.8 wire shape. */
export function complianceRecord(invoiceId: number, r: ComplianceResult) {
  return {
    invoice_id: invoiceId,
    compliance: {
      status: r.status,
      reporting_method: r.reporting_method,
      delivery_eligibility: r.delivery_eligibility,
      required_action: r.required_action,
      allowed_actions: r.allowed_actions,
      evaluated_at: r.evaluated_at,
      blocking_reason: r.blocking_reason,
    },
  };
}
