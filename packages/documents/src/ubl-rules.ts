import { XMLParser } from 'fast-xml-parser';
import { Dec } from '@ledgerline/core/money';

/*
 * The business rules of EN 16931 and Peppol BIS Billing 3.0 that can apply to the documents we
 * write (issue 53), checked on the XML itself — the document a receiver gets — before it is
 * answered. Each rule carries its official id and says what it asks; `checkUblRules` answers
 * those a document breaks. The ids are the rule sets' own (EN 16931 BR-*, BR-CO-*, BR-DEC-*, the
 * VAT category families BR-S/Z/E/AE/K/G/O/L/M-*, BR-IC-*, and PEPPOL-EN16931-R*); where a rule
 * of those sets reads an element we never write (invoice periods, item attributes, tax
 * representatives), it has nothing to check and is left out. `docs/einvoice-rules.md` lists
 * every rule and the test that breaks it.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Node = Record<string, any>;

const ARRAYS = new Set(['InvoiceLine', 'CreditNoteLine', 'AllowanceCharge', 'TaxTotal', 'TaxSubtotal', 'PaymentMeans', 'Note', 'PartyTaxScheme', 'BillingReference']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => ARRAYS.has(name),
});

const text = (v: unknown): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v === 'object') return text((v as Node)['#text']);
  const s = String(v).trim();
  return s === '' ? null : s;
};
const attr = (v: unknown, name: string): string | null => (v && typeof v === 'object' ? text((v as Node)[`@${name}`]) : null);
const dec = (v: unknown): Dec | null => {
  const t = text(v);
  return t !== null && /^-?\d+(\.\d+)?$/.test(t) ? Dec(t) : null;
};
const decimals = (v: unknown): number => (text(v)?.split('.')[1] ?? '').length;
const list = (v: unknown): Node[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** A document as the rules read it. */
export interface RuleDocument {
  root: Node;
  isInvoice: boolean;
  lines: Node[];
  charges: Node[];
  subtotals: Node[];
  /** The TaxTotal in the document currency (the one with subtotals). */
  taxTotal: Node | null;
  totals: Node;
  currency: string | null;
  seller: Node;
  buyer: Node;
}

export function readRuleDocument(xml: string): RuleDocument {
  const parsed = parser.parse(xml) as Node;
  const isInvoice = 'Invoice' in parsed;
  const root = (parsed.Invoice ?? parsed.CreditNote ?? {}) as Node;
  const taxTotals = list(root.TaxTotal);
  const currency = text(root.DocumentCurrencyCode);
  return {
    root,
    isInvoice,
    lines: list(isInvoice ? root.InvoiceLine : root.CreditNoteLine),
    charges: list(root.AllowanceCharge),
    subtotals: taxTotals.flatMap((t) => list(t.TaxSubtotal)),
    taxTotal: taxTotals.find((t) => list(t.TaxSubtotal).length > 0) ?? taxTotals.find((t) => attr(t.TaxAmount, 'currencyID') === currency) ?? null,
    totals: (root.LegalMonetaryTotal ?? {}) as Node,
    currency,
    seller: (root.AccountingSupplierParty?.Party ?? {}) as Node,
    buyer: (root.AccountingCustomerParty?.Party ?? {}) as Node,
  };
}

export interface UblRule {
  id: string;
  /** What the rule asks, in the rule set's words, shortened. */
  text: string;
  /** Null when the document keeps the rule, else what breaks it. */
  check: (d: RuleDocument) => string | null;
}

const quantityOf = (d: RuleDocument, l: Node) => (d.isInvoice ? l.InvoicedQuantity : l.CreditedQuantity);
const categoryOf = (tc: Node | undefined) => text(tc?.ID);
const lineCategory = (l: Node) => categoryOf(l.Item?.ClassifiedTaxCategory);
const lineRate = (l: Node) => dec(l.Item?.ClassifiedTaxCategory?.Percent) ?? Dec(0);
const sum = (xs: Array<Dec | null>) => xs.reduce<Dec>((a, x) => a.plus(x ?? 0), Dec(0));
const vatIdOf = (party: Node): string | null =>
  list(party.PartyTaxScheme)
    .filter((t) => (text(t.TaxScheme?.ID) ?? 'VAT') === 'VAT')
    .map((t) => text(t.CompanyID))
    .find(Boolean) ?? null;
/** The document-level allowances (`false`) or charges (`true`). */
const adjustments = (d: RuleDocument, charge: boolean) => d.charges.filter((c) => text(c.ChargeIndicator) === String(charge));
const first = <T>(xs: T[], f: (x: T, i: number) => string | null): string | null => {
  for (let i = 0; i < xs.length; i++) {
    const r = f(xs[i], i);
    if (r) return r;
  }
  return null;
};
const round2 = (v: Dec) => v.toDecimalPlaces(2, Dec.ROUND_HALF_UP);
/**
 * A category's VAT against its taxable amount × rate: the current CEN rule set (BR-CO-17 and the
 * category rules' -09) accepts less than one unit of difference, since VAT computed and rounded
 * per line (as Czech invoices often are) sums to a few cents off the rate applied to the total.
 */
const withinRounding = (tax: Dec, expected: Dec) => tax.abs().minus(expected.abs()).abs().lt(1);

const required = (id: string, what: string, get: (d: RuleDocument) => unknown): UblRule => ({ id, text: `${what} is required`, check: (d) => (text(get(d)) === null ? `${what} is missing` : null) });

/** The rules of one VAT category family (BR-S, BR-Z, BR-E, BR-AE, BR-K, BR-G, BR-O, BR-L, BR-M). */
function categoryRules(category: string, prefix: string, opts: { rate: 'positive' | 'zero' | 'none' | 'any'; exemption: 'forbidden' | 'required'; sellerVat: boolean | 'forbidden'; buyerVat?: boolean }): UblRule[] {
  const has = (d: RuleDocument) => d.lines.some((l) => lineCategory(l) === category) || d.charges.some((c) => categoryOf(c.TaxCategory) === category) || d.subtotals.some((s) => categoryOf(s.TaxCategory) === category);
  const subtotalsOf = (d: RuleDocument) => d.subtotals.filter((s) => categoryOf(s.TaxCategory) === category);
  const rules: UblRule[] = [
    {
      id: `${prefix}-01`,
      text: `a document with a line, allowance or charge of category ${category} has a VAT breakdown of category ${category}`,
      check: (d) => ((d.lines.some((l) => lineCategory(l) === category) || d.charges.some((c) => categoryOf(c.TaxCategory) === category)) && subtotalsOf(d).length === 0 ? `no TaxSubtotal of category ${category}` : null),
    },
    opts.sellerVat === 'forbidden'
      ? {
          id: `${prefix}-02`,
          text: `a document with category ${category} names neither the seller's nor the buyer's VAT identifier`,
          check: (d) => (has(d) && (vatIdOf(d.seller) || vatIdOf(d.buyer)) ? `VAT identifier ${vatIdOf(d.seller) ?? vatIdOf(d.buyer)} given` : null),
        }
      : {
          id: `${prefix}-02`,
          text: `a document with category ${category} names the seller's VAT identifier${opts.buyerVat ? " and the buyer's" : ''}`,
          check: (d) => (has(d) && opts.sellerVat && !vatIdOf(d.seller) ? "the seller's VAT identifier (BT-31) is missing" : has(d) && opts.buyerVat && !vatIdOf(d.buyer) ? "the buyer's VAT identifier (BT-48) is missing" : null),
        },
    {
      id: `${prefix}-05`,
      text: `an invoiced item of category ${category} has a VAT rate ${opts.rate === 'positive' ? 'above zero' : opts.rate === 'zero' ? 'of 0' : opts.rate === 'none' ? 'not given' : 'of zero or more'}`,
      check: (d) =>
        first(
          d.lines.filter((l) => lineCategory(l) === category),
          (l, i) => {
            const p = dec(l.Item?.ClassifiedTaxCategory?.Percent);
            if (opts.rate === 'positive' && !(p && p.gt(0))) return `line ${i + 1}: rate ${p ?? 'missing'}`;
            if (opts.rate === 'zero' && !(p && p.isZero())) return `line ${i + 1}: rate ${p ?? 'missing'}`;
            if (opts.rate === 'none' && p !== null) return `line ${i + 1}: rate ${p} given`;
            if (opts.rate === 'any' && (p === null || p.lt(0))) return `line ${i + 1}: rate ${p ?? 'missing'}`;
            return null;
          },
        ),
    },
    {
      id: `${prefix}-08`,
      text: `the taxable amount of category ${category} (per rate) is the sum of its lines, plus its charges, less its allowances`,
      check: (d) =>
        first(subtotalsOf(d), (s) => {
          const rate = dec(s.TaxCategory?.Percent) ?? Dec(0);
          const sameRate = (tc: Node | undefined) => categoryOf(tc) === category && (category === 'O' || (dec(tc?.Percent) ?? Dec(0)).eq(rate));
          const lines = sum(d.lines.filter((l) => sameRate(l.Item?.ClassifiedTaxCategory)).map((l) => dec(l.LineExtensionAmount)));
          const adj = sum(d.charges.filter((c) => sameRate(c.TaxCategory)).map((c) => (dec(c.Amount) ?? Dec(0)).times(text(c.ChargeIndicator) === 'true' ? 1 : -1)));
          const taxable = dec(s.TaxableAmount) ?? Dec(0);
          return taxable.eq(lines.plus(adj)) ? null : `taxable ${taxable} at ${rate} %, lines and adjustments give ${lines.plus(adj)}`;
        }),
    },
    {
      id: `${prefix}-09`,
      text: opts.rate === 'positive' || opts.rate === 'any' ? `the VAT of category ${category} is its taxable amount times its rate, rounded to two decimals` : `the VAT of category ${category} is 0`,
      check: (d) =>
        first(subtotalsOf(d), (s) => {
          const tax = dec(s.TaxAmount) ?? Dec(0);
          if (opts.rate === 'positive' || opts.rate === 'any') {
            const expected = round2((dec(s.TaxableAmount) ?? Dec(0)).times(dec(s.TaxCategory?.Percent) ?? 0).div(100));
            return withinRounding(tax, expected) ? null : `VAT ${tax}, taxable × rate gives ${expected}`;
          }
          return tax.isZero() ? null : `VAT ${tax}, not 0`;
        }),
    },
    {
      id: `${prefix}-10`,
      text: opts.exemption === 'required' ? `a VAT breakdown of category ${category} gives an exemption reason or its code` : `a VAT breakdown of category ${category} gives no exemption reason`,
      check: (d) =>
        first(subtotalsOf(d), (s) => {
          const reason = text(s.TaxCategory?.TaxExemptionReason) ?? text(s.TaxCategory?.TaxExemptionReasonCode);
          if (opts.exemption === 'required') return reason ? null : 'no TaxExemptionReason(Code)';
          return reason ? `exemption reason "${reason}" given` : null;
        }),
    },
  ];
  return rules;
}

const AMOUNT_ELEMENTS: Array<[string, string, (d: RuleDocument) => unknown[]]> = [
  ['BR-DEC-01', 'document allowance amount', (d) => adjustments(d, false).map((c) => c.Amount)],
  ['BR-DEC-05', 'document charge amount', (d) => adjustments(d, true).map((c) => c.Amount)],
  ['BR-DEC-09', 'sum of line net amounts (BT-106)', (d) => [d.totals.LineExtensionAmount]],
  ['BR-DEC-10', 'sum of allowances (BT-107)', (d) => [d.totals.AllowanceTotalAmount]],
  ['BR-DEC-11', 'sum of charges (BT-108)', (d) => [d.totals.ChargeTotalAmount]],
  ['BR-DEC-12', 'total without VAT (BT-109)', (d) => [d.totals.TaxExclusiveAmount]],
  ['BR-DEC-13', 'total VAT (BT-110)', (d) => [d.taxTotal?.TaxAmount]],
  ['BR-DEC-14', 'total with VAT (BT-112)', (d) => [d.totals.TaxInclusiveAmount]],
  ['BR-DEC-15', 'total VAT in accounting currency (BT-111)', (d) => list(d.root.TaxTotal).filter((t) => attr(t.TaxAmount, 'currencyID') !== d.currency).map((t) => t.TaxAmount)],
  ['BR-DEC-16', 'paid amount (BT-113)', (d) => [d.totals.PrepaidAmount]],
  ['BR-DEC-17', 'rounding amount (BT-114)', (d) => [d.totals.PayableRoundingAmount]],
  ['BR-DEC-18', 'amount due (BT-115)', (d) => [d.totals.PayableAmount]],
  ['BR-DEC-19', 'VAT category taxable amount (BT-116)', (d) => d.subtotals.map((s) => s.TaxableAmount)],
  ['BR-DEC-20', 'VAT category tax amount (BT-117)', (d) => d.subtotals.map((s) => s.TaxAmount)],
  ['BR-DEC-23', 'line net amount (BT-131)', (d) => d.lines.map((l) => l.LineExtensionAmount)],
];

export const UBL_RULES: UblRule[] = [
  required('BR-01', 'the specification identifier (BT-24)', (d) => d.root.CustomizationID),
  required('BR-02', 'the invoice number (BT-1)', (d) => d.root.ID),
  required('BR-03', 'the issue date (BT-2)', (d) => d.root.IssueDate),
  required('BR-04', 'the type code (BT-3)', (d) => (d.isInvoice ? d.root.InvoiceTypeCode : d.root.CreditNoteTypeCode)),
  required('BR-05', 'the currency code (BT-5)', (d) => d.root.DocumentCurrencyCode),
  required('BR-06', "the seller's name (BT-27)", (d) => d.seller.PartyLegalEntity?.RegistrationName),
  required('BR-07', "the buyer's name (BT-44)", (d) => d.buyer.PartyLegalEntity?.RegistrationName),
  { id: 'BR-08', text: "the seller's postal address (BG-5) is given", check: (d) => (d.seller.PostalAddress ? null : 'no PostalAddress') },
  required('BR-09', "the seller's country code (BT-40)", (d) => d.seller.PostalAddress?.Country?.IdentificationCode),
  { id: 'BR-10', text: "the buyer's postal address (BG-8) is given", check: (d) => (d.buyer.PostalAddress ? null : 'no PostalAddress') },
  required('BR-11', "the buyer's country code (BT-55)", (d) => d.buyer.PostalAddress?.Country?.IdentificationCode),
  required('BR-12', 'the sum of line net amounts (BT-106)', (d) => d.totals.LineExtensionAmount),
  required('BR-13', 'the total without VAT (BT-109)', (d) => d.totals.TaxExclusiveAmount),
  required('BR-14', 'the total with VAT (BT-112)', (d) => d.totals.TaxInclusiveAmount),
  required('BR-15', 'the amount due (BT-115)', (d) => d.totals.PayableAmount),
  { id: 'BR-16', text: 'at least one invoice line', check: (d) => (d.lines.length > 0 ? null : 'no lines') },
  { id: 'BR-21', text: 'every line has an identifier (BT-126)', check: (d) => first(d.lines, (l, i) => (text(l.ID) ? null : `line ${i + 1} has no ID`)) },
  { id: 'BR-22', text: 'every line has a quantity (BT-129)', check: (d) => first(d.lines, (l, i) => (dec(quantityOf(d, l)) ? null : `line ${i + 1} has no quantity`)) },
  { id: 'BR-23', text: 'every line has a unit of measure (BT-130)', check: (d) => first(d.lines, (l, i) => (attr(quantityOf(d, l), 'unitCode') ? null : `line ${i + 1} has no unitCode`)) },
  { id: 'BR-24', text: 'every line has a net amount (BT-131)', check: (d) => first(d.lines, (l, i) => (dec(l.LineExtensionAmount) ? null : `line ${i + 1} has no LineExtensionAmount`)) },
  { id: 'BR-25', text: 'every line has an item name (BT-153)', check: (d) => first(d.lines, (l, i) => (text(l.Item?.Name) ? null : `line ${i + 1} has no item name`)) },
  { id: 'BR-26', text: 'every line has a net price (BT-146)', check: (d) => first(d.lines, (l, i) => (dec(l.Price?.PriceAmount) ? null : `line ${i + 1} has no PriceAmount`)) },
  { id: 'BR-27', text: 'a net price (BT-146) is not negative', check: (d) => first(d.lines, (l, i) => ((dec(l.Price?.PriceAmount) ?? Dec(0)).lt(0) ? `line ${i + 1}: price ${text(l.Price?.PriceAmount)}` : null)) },
  { id: 'BR-31', text: 'a document allowance has an amount (BT-92)', check: (d) => first(adjustments(d, false), (c) => (dec(c.Amount) ? null : 'an allowance without Amount')) },
  { id: 'BR-32', text: 'a document allowance has a VAT category (BT-95)', check: (d) => first(adjustments(d, false), (c) => (categoryOf(c.TaxCategory) ? null : 'an allowance without TaxCategory/ID')) },
  { id: 'BR-33', text: 'a document allowance has a reason or its code (BT-97, BT-98)', check: (d) => first(adjustments(d, false), (c) => (text(c.AllowanceChargeReason) || text(c.AllowanceChargeReasonCode) ? null : 'an allowance without a reason')) },
  { id: 'BR-36', text: 'a document charge has an amount (BT-99)', check: (d) => first(adjustments(d, true), (c) => (dec(c.Amount) ? null : 'a charge without Amount')) },
  { id: 'BR-37', text: 'a document charge has a VAT category (BT-102)', check: (d) => first(adjustments(d, true), (c) => (categoryOf(c.TaxCategory) ? null : 'a charge without TaxCategory/ID')) },
  { id: 'BR-38', text: 'a document charge has a reason or its code (BT-104, BT-105)', check: (d) => first(adjustments(d, true), (c) => (text(c.AllowanceChargeReason) || text(c.AllowanceChargeReasonCode) ? null : 'a charge without a reason')) },
  { id: 'BR-45', text: 'every VAT breakdown has a taxable amount (BT-116)', check: (d) => first(d.subtotals, (s) => (dec(s.TaxableAmount) ? null : 'a TaxSubtotal without TaxableAmount')) },
  { id: 'BR-46', text: 'every VAT breakdown has a tax amount (BT-117)', check: (d) => first(d.subtotals, (s) => (dec(s.TaxAmount) ? null : 'a TaxSubtotal without TaxAmount')) },
  { id: 'BR-47', text: 'every VAT breakdown has a category code (BT-118)', check: (d) => first(d.subtotals, (s) => (categoryOf(s.TaxCategory) ? null : 'a TaxSubtotal without TaxCategory/ID')) },
  { id: 'BR-48', text: 'every VAT breakdown but category O has a rate (BT-119)', check: (d) => first(d.subtotals, (s) => (categoryOf(s.TaxCategory) === 'O' || dec(s.TaxCategory?.Percent) ? null : `category ${categoryOf(s.TaxCategory)} without Percent`)) },
  { id: 'BR-49', text: 'a payment instruction has a type code (BT-81)', check: (d) => first(list(d.root.PaymentMeans), (m) => (text(m.PaymentMeansCode) ? null : 'PaymentMeans without PaymentMeansCode')) },
  {
    id: 'BR-50',
    text: 'a credit transfer names the payee account (BT-84)',
    check: (d) => first(list(d.root.PaymentMeans), (m) => (['30', '58'].includes(text(m.PaymentMeansCode) ?? '') && !text(m.PayeeFinancialAccount?.ID) ? 'credit transfer without PayeeFinancialAccount/ID' : null)),
  },
  {
    id: 'BR-53',
    text: 'a VAT accounting currency (BT-6) comes with the total VAT in it (BT-111)',
    check: (d) => {
      const code = text(d.root.TaxCurrencyCode);
      return code && !list(d.root.TaxTotal).some((t) => attr(t.TaxAmount, 'currencyID') === code) ? `no TaxTotal in ${code}` : null;
    },
  },
  { id: 'BR-55', text: 'a preceding invoice reference has its number (BT-25)', check: (d) => first(list(d.root.BillingReference), (b) => (text(b.InvoiceDocumentReference?.ID) ? null : 'BillingReference without its ID')) },
  { id: 'BR-57', text: 'a deliver-to address (BG-15) has its country code (BT-80)', check: (d) => (d.root.Delivery?.DeliveryLocation?.Address && !text(d.root.Delivery.DeliveryLocation.Address.Country?.IdentificationCode) ? 'the delivery address has no country' : null) },
  { id: 'BR-61', text: 'a credit transfer has the payment account identifier (BT-84)', check: (d) => first(list(d.root.PaymentMeans), (m) => (text(m.PaymentMeansCode) === '30' && !text(m.PayeeFinancialAccount?.ID) ? 'credit transfer without an account' : null)) },
  { id: 'BR-62', text: "the seller's electronic address (BT-34) has a scheme (BT-34-1)", check: (d) => (d.seller.EndpointID && !attr(d.seller.EndpointID, 'schemeID') ? 'EndpointID without schemeID' : null) },
  { id: 'BR-63', text: "the buyer's electronic address (BT-49) has a scheme (BT-49-1)", check: (d) => (d.buyer.EndpointID && !attr(d.buyer.EndpointID, 'schemeID') ? 'EndpointID without schemeID' : null) },
  { id: 'BR-CO-4', text: 'every line has a VAT category (BT-151)', check: (d) => first(d.lines, (l, i) => (lineCategory(l) ? null : `line ${i + 1} has no ClassifiedTaxCategory/ID`)) },
  {
    id: 'BR-CO-9',
    text: 'a VAT identifier starts with a country code (ISO 3166 alpha-2, EL for Greece)',
    check: (d) => first([vatIdOf(d.seller), vatIdOf(d.buyer)], (v) => (v && !/^[A-Z]{2}/.test(v) ? `VAT identifier ${v}` : null)),
  },
  {
    id: 'BR-CO-10',
    text: 'the sum of line net amounts (BT-106) is the sum of the lines (BT-131)',
    check: (d) => {
      const total = dec(d.totals.LineExtensionAmount) ?? Dec(0);
      const lines = sum(d.lines.map((l) => dec(l.LineExtensionAmount)));
      return total.eq(lines) ? null : `${total} stated, the lines give ${lines}`;
    },
  },
  {
    id: 'BR-CO-11',
    text: 'the sum of allowances (BT-107) is the sum of the document allowances (BT-92)',
    check: (d) => {
      const stated = dec(d.totals.AllowanceTotalAmount) ?? Dec(0);
      const actual = sum(adjustments(d, false).map((c) => dec(c.Amount)));
      return stated.eq(actual) ? null : `${stated} stated, the allowances give ${actual}`;
    },
  },
  {
    id: 'BR-CO-12',
    text: 'the sum of charges (BT-108) is the sum of the document charges (BT-99)',
    check: (d) => {
      const stated = dec(d.totals.ChargeTotalAmount) ?? Dec(0);
      const actual = sum(adjustments(d, true).map((c) => dec(c.Amount)));
      return stated.eq(actual) ? null : `${stated} stated, the charges give ${actual}`;
    },
  },
  {
    id: 'BR-CO-13',
    text: 'the total without VAT (BT-109) is the line sum less allowances plus charges',
    check: (d) => {
      const stated = dec(d.totals.TaxExclusiveAmount) ?? Dec(0);
      const actual = (dec(d.totals.LineExtensionAmount) ?? Dec(0)).minus(dec(d.totals.AllowanceTotalAmount) ?? 0).plus(dec(d.totals.ChargeTotalAmount) ?? 0);
      return stated.eq(actual) ? null : `${stated} stated, ${actual} computed`;
    },
  },
  {
    id: 'BR-CO-14',
    text: 'the total VAT (BT-110) is the sum of the VAT breakdown amounts (BT-117)',
    check: (d) => {
      const stated = dec(d.taxTotal?.TaxAmount) ?? Dec(0);
      const actual = sum(d.subtotals.map((s) => dec(s.TaxAmount)));
      return stated.eq(actual) ? null : `${stated} stated, the breakdown gives ${actual}`;
    },
  },
  {
    id: 'BR-CO-15',
    text: 'the total with VAT (BT-112) is the total without VAT plus the total VAT',
    check: (d) => {
      const stated = dec(d.totals.TaxInclusiveAmount) ?? Dec(0);
      const actual = (dec(d.totals.TaxExclusiveAmount) ?? Dec(0)).plus(dec(d.taxTotal?.TaxAmount) ?? 0);
      return stated.eq(actual) ? null : `${stated} stated, ${actual} computed`;
    },
  },
  {
    id: 'BR-CO-16',
    text: 'the amount due (BT-115) is the total with VAT less the paid amount plus the rounding',
    check: (d) => {
      const stated = dec(d.totals.PayableAmount) ?? Dec(0);
      const actual = (dec(d.totals.TaxInclusiveAmount) ?? Dec(0)).minus(dec(d.totals.PrepaidAmount) ?? 0).plus(dec(d.totals.PayableRoundingAmount) ?? 0);
      return stated.eq(actual) ? null : `${stated} stated, ${actual} computed`;
    },
  },
  {
    id: 'BR-CO-17',
    text: 'a VAT breakdown amount (BT-117) is its taxable amount times its rate, rounded to two decimals',
    check: (d) =>
      first(d.subtotals, (s) => {
        const rate = dec(s.TaxCategory?.Percent);
        if (rate === null) return null;
        const expected = round2((dec(s.TaxableAmount) ?? Dec(0)).times(rate).div(100));
        const tax = dec(s.TaxAmount) ?? Dec(0);
        return withinRounding(tax, expected) ? null : `${tax} at ${rate} % of ${text(s.TaxableAmount)}, ${expected} computed`;
      }),
  },
  { id: 'BR-CO-18', text: 'there is at least one VAT breakdown (BG-23)', check: (d) => (d.subtotals.length > 0 ? null : 'no TaxSubtotal') },
  {
    id: 'BR-CO-25',
    text: 'an invoice with an amount due above zero has a due date (BT-9) or payment terms (BT-20)',
    check: (d) =>
      d.isInvoice && (dec(d.totals.PayableAmount) ?? Dec(0)).gt(0) && !text(d.root.DueDate) && !text(d.root.PaymentTerms?.Note) ? 'neither DueDate nor PaymentTerms' : null,
  },
  {
    id: 'BR-CO-26',
    text: "the seller is identified by an identifier (BT-29), a legal registration (BT-30) or a VAT identifier (BT-31)",
    check: (d) => (text(d.seller.PartyIdentification?.ID) || text(d.seller.PartyLegalEntity?.CompanyID) || vatIdOf(d.seller) ? null : 'the seller has no identifier'),
  },
  ...AMOUNT_ELEMENTS.map(([id, what, get]): UblRule => ({
    id,
    text: `the ${what} has at most two decimals`,
    check: (d) => first(get(d).filter((v) => v !== undefined), (v) => (decimals(v) > 2 ? `${text(v)} has ${decimals(v)} decimals` : null)),
  })),
  ...categoryRules('S', 'BR-S', { rate: 'positive', exemption: 'forbidden', sellerVat: true }),
  ...categoryRules('Z', 'BR-Z', { rate: 'zero', exemption: 'forbidden', sellerVat: true }),
  ...categoryRules('E', 'BR-E', { rate: 'zero', exemption: 'required', sellerVat: true }),
  ...categoryRules('AE', 'BR-AE', { rate: 'zero', exemption: 'required', sellerVat: true, buyerVat: true }),
  ...categoryRules('K', 'BR-K', { rate: 'zero', exemption: 'required', sellerVat: true, buyerVat: true }),
  ...categoryRules('G', 'BR-G', { rate: 'zero', exemption: 'required', sellerVat: true }),
  ...categoryRules('O', 'BR-O', { rate: 'none', exemption: 'required', sellerVat: 'forbidden' }),
  ...categoryRules('L', 'BR-L', { rate: 'any', exemption: 'forbidden', sellerVat: true }),
  ...categoryRules('M', 'BR-M', { rate: 'any', exemption: 'forbidden', sellerVat: true }),
  {
    id: 'BR-O-11',
    text: 'a document with a VAT breakdown of category O has no other VAT breakdown',
    check: (d) => (d.subtotals.some((s) => categoryOf(s.TaxCategory) === 'O') && d.subtotals.some((s) => categoryOf(s.TaxCategory) !== 'O') ? 'category O beside other categories' : null),
  },
  {
    id: 'BR-IC-11',
    text: 'an intra-Community supply states the actual delivery date (BT-72) or an invoicing period (BG-14)',
    check: (d) => (d.subtotals.some((s) => categoryOf(s.TaxCategory) === 'K') && !text(d.root.Delivery?.ActualDeliveryDate) && !d.root.InvoicePeriod ? 'no ActualDeliveryDate nor InvoicePeriod' : null),
  },
  {
    id: 'BR-IC-12',
    text: 'an intra-Community supply states the deliver-to country (BT-80)',
    check: (d) => (d.subtotals.some((s) => categoryOf(s.TaxCategory) === 'K') && !text(d.root.Delivery?.DeliveryLocation?.Address?.Country?.IdentificationCode) ? 'no deliver-to country' : null),
  },
  required('PEPPOL-EN16931-R001', 'the business process (ProfileID)', (d) => d.root.ProfileID),
  {
    id: 'PEPPOL-EN16931-R003',
    text: 'a buyer reference (BT-10) or purchase order reference (BT-13) is given',
    check: (d) => (text(d.root.BuyerReference) || text(d.root.OrderReference?.ID) ? null : 'neither BuyerReference nor OrderReference'),
  },
  {
    id: 'PEPPOL-EN16931-R004',
    text: 'the specification identifier is the Peppol BIS Billing 3.0 one',
    check: (d) => (/^urn:cen\.eu:en16931:2017#compliant#urn:fdc:peppol\.eu:2017:poacc:billing:3\.0/.test(text(d.root.CustomizationID) ?? '') ? null : `CustomizationID ${text(d.root.CustomizationID)}`),
  },
  { id: 'PEPPOL-EN16931-R005', text: 'the VAT accounting currency differs from the document currency', check: (d) => (text(d.root.TaxCurrencyCode) && text(d.root.TaxCurrencyCode) === d.currency ? 'TaxCurrencyCode is the document currency' : null) },
  required('PEPPOL-EN16931-R010', "the buyer's electronic address (BT-49)", (d) => d.buyer.EndpointID),
  required('PEPPOL-EN16931-R020', "the seller's electronic address (BT-34)", (d) => d.seller.EndpointID),
  {
    id: 'PEPPOL-EN16931-R053',
    text: 'exactly one tax total with the VAT breakdown',
    check: (d) => {
      const n = list(d.root.TaxTotal).filter((t) => list(t.TaxSubtotal).length > 0).length;
      return n === 1 ? null : `${n} TaxTotal with TaxSubtotal`;
    },
  },
  {
    id: 'PEPPOL-EN16931-R054',
    text: 'a tax total without breakdown only for the VAT accounting currency',
    check: (d) => {
      const bare = list(d.root.TaxTotal).filter((t) => list(t.TaxSubtotal).length === 0);
      return bare.length > (text(d.root.TaxCurrencyCode) ? 1 : 0) ? `${bare.length} TaxTotal without TaxSubtotal` : null;
    },
  },
  {
    id: 'PEPPOL-EN16931-R120',
    text: 'a line net amount is its quantity times its net price (per base quantity), rounded to two decimals',
    check: (d) =>
      first(d.lines, (l, i) => {
        const qty = dec(quantityOf(d, l)) ?? Dec(0);
        const price = dec(l.Price?.PriceAmount) ?? Dec(0);
        const base = dec(l.Price?.BaseQuantity) ?? Dec(1);
        const expected = round2(qty.times(price).div(base.isZero() ? 1 : base));
        const net = dec(l.LineExtensionAmount) ?? Dec(0);
        return net.eq(expected) ? null : `line ${i + 1}: ${net} stated, ${qty} × ${price} gives ${expected}`;
      }),
  },
  { id: 'PEPPOL-EN16931-R121', text: 'a base quantity is above zero', check: (d) => first(d.lines, (l, i) => (l.Price?.BaseQuantity !== undefined && !(dec(l.Price.BaseQuantity) ?? Dec(0)).gt(0) ? `line ${i + 1}` : null)) },
];

/** The rules a document breaks, each with what breaks it. */
export function checkUblRules(xml: string, rules: readonly UblRule[] = UBL_RULES): Array<{ id: string; text: string; message: string }> {
  const d = readRuleDocument(xml);
  const failed: Array<{ id: string; text: string; message: string }> = [];
  for (const r of rules) {
    const message = r.check(d);
    if (message) failed.push({ id: r.id, text: r.text, message });
  }
  return failed;
}
