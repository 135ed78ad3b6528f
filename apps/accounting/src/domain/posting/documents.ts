import { Dec, dec, roundMoney } from '@ledgerline/service-kit';
import { ACCOUNTS } from '../posting-map.js';
import type { PurchaseDocument, SalesDocument, TaxLine } from '../source-documents.js';
import type { SalesInvoicePostedEvent } from '@ledgerline/contracts';
import { vatReportingFields } from '../vat.js';
import { conversion, legal } from './conversions.js';
import { isReverseChargeCategory, type TaxCategory } from '@ledgerline/core/tax-category';
import type { SupplyKind } from '../vat.js';
import { attachTaxRows, baseEntry, documentTaxParties, organisationCountry, documentLegs, roundingFigures, emptyTaxRow, legalCurrencyOf, lineCategory, netParts, sameTax, supplyKind } from './document-figures.js';
import type { DraftTaxRow, Json, LedgerEntryDraft, PostingOptions } from './entry.js';
import { assertBalanced, postingRows, sums } from './interpreter.js';

/* Sales and purchase documents → ledger entries. */

/**
 * Sales invoice or credit note → Dr 311 total / Cr 604 net, Cr 343 tax, rounding to 648 or 548
 * (reversed for a credit note); a final invoice's advances Dr 324 + Dr 343 / Cr 311. An advance tax
 * document → Dr 324 / Cr 343 its VAT (decision 236).
 */
export function ledgerEntryForSalesDocument(type: 'sales_invoice' | 'sales_credit_note' | 'sales_advance_tax_document', doc: SalesDocument, opts: PostingOptions): LedgerEntryDraft {
  const legalCurrency = legalCurrencyOf(doc, opts);
  const what = `${type} ${doc.id}`;
  const conv = conversion(doc.currency, legalCurrency, doc.fx_rate, doc.currency_coef, what);
  const taxConv = conversion(doc.currency, legalCurrency, doc.tax_fx_rate ?? doc.fx_rate, doc.currency_coef, what);
  const taxLegs = doc.taxes.map((t) => ({ line: t, base: legal(t.tax_base, t.tax_base_leg, taxConv), amount: legal(t.tax_amount, t.tax_amount_leg, taxConv) }));
  const taxLeg = taxLegs.reduce((s, t) => s.plus(t.amount), dec(0));
  const { netLeg, roundingLeg, totalLeg } = documentLegs(doc, taxConv, taxLeg, conv);

  const credit = type === 'sales_credit_note';
  const sign = credit ? -1 : 1;
  const contact = (doc.customer as Json | null | undefined) ?? null;
  const orgCountry = organisationCountry(opts);
  const partnerCountry = doc.customer?.address?.country ?? doc.billing_address?.country ?? null;
  const parties = documentTaxParties(doc, orgCountry);
  /** Where a tax row of this document is reported (VAT return row, control-statement section). */
  const saleReporting = (rate: Dec, category: TaxCategory, supply: SupplyKind) =>
    vatReportingFields({ side: 'sale', orgCountry, partnerCountry, partnerVatNo: doc.customer?.vat_no, totalLeg, rate, category, supply, controlStatementOverride: credit ? opts.controlStatementOverride : undefined });
  const taxRows = taxLegs.map(({ line, base, amount }) => {
    const category = lineCategory(doc, line, parties);
    const rc = isReverseChargeCategory(category);
    return {
      ...emptyTaxRow(ACCOUNTS.vat, doc.currency),
      debit: credit ? roundMoney(amount) : dec(0),
      credit: credit ? dec(0) : roundMoney(amount),
      description: line.tax_name ?? null,
      tax_rate: dec(line.tax_rate),
      tax_rate_rc: rc ? dec(line.tax_rate) : null,
      is_reverse_charge: rc,
      tax_index: line.tax_index ?? null,
      tax_code: line.tax_code ?? null,
      tax_name: line.tax_name ?? null,
      tax_base_out: dec(line.tax_base).times(sign),
      tax_base_out_leg: base.times(sign),
      tax_amount_out: dec(line.tax_amount).times(sign),
      tax_amount_out_leg: amount.times(sign),
      ...saleReporting(dec(line.tax_rate), category, supplyKind(doc, line)),
    } satisfies DraftTaxRow;
  });

  const advances = advanceFigures(doc);
  const taxLines = doc.taxes.map((line) => ({ line, category: lineCategory(doc, line, parties) }));
  for (const a of advances.taxes) {
    // the advance's VAT taken back under the category of the supply's line at its rate
    const own = taxLines.find((t) => dec(t.line.tax_rate).eq(a.tax_rate)) ?? taxLines[0];
    taxRows.push({
      ...emptyTaxRow(ACCOUNTS.vat, doc.currency),
      debit: roundMoney(dec(a.tax_amount_leg)),
      description: own?.line.tax_name ?? null,
      tax_rate: dec(a.tax_rate),
      tax_code: a.tax_code ?? own?.line.tax_code ?? null,
      tax_name: own?.line.tax_name ?? null,
      tax_base_out: dec(a.tax_base).negated(),
      tax_base_out_leg: dec(a.tax_base_leg).negated(),
      tax_amount_out: dec(a.tax_amount).negated(),
      tax_amount_out_leg: dec(a.tax_amount_leg).negated(),
      ...saleReporting(dec(a.tax_rate), own ? own.category : 'S', own ? supplyKind(doc, own.line) : 'goods'),
    } satisfies DraftTaxRow);
  }

  const rows = postingRows(
    type,
    {
      total: [{ amount: totalLeg }],
      net: netParts(doc, netLeg, conv),
      tax: [{ amount: taxLeg }],
      ...roundingFigures(roundingLeg, !credit),
      advance_total: [{ amount: advances.total }],
      advance_tax: [{ amount: advances.tax }],
      advance_net: [{ amount: advances.total.minus(advances.tax) }],
    },
    { currency: doc.currency, contact, paid_record: null, payment_reference: doc.payment_reference ?? null, description: null },
    new Set(doc.taxes.length ? ['tax'] : []),
  );
  attachTaxRows(rows, taxRows);
  const entry: LedgerEntryDraft = { ...baseEntry(doc, type, legalCurrency, contact), total: sums(rows).debit, rows };
  assertBalanced(entry);
  return entry;
}

/** What a final invoice or bill deducts of its advances in the legal currency: in all, and the VAT rate by rate. */
function advanceFigures(doc: SalesDocument | PurchaseDocument): { total: Dec; tax: Dec; taxes: NonNullable<SalesInvoicePostedEvent['advances']>[number]['taxes'] } {
  const advances = ('advances' in doc ? doc.advances : null) ?? [];
  const taxes = advances.flatMap((a) => a.taxes);
  return {
    total: advances.reduce((s, a) => s.plus(a.amount_leg), dec(0)),
    tax: taxes.reduce((s, t) => s.plus(t.tax_amount_leg), dec(0)),
    taxes,
  };
}

// --- purchase documents ------------------------------------------------------------------------

/** Weighted deduction ratio of the items that carry this tax (1 when none says otherwise). */
export function deductionRatio(doc: PurchaseDocument, tax: TaxLine, field: 'tax_deduction_ratio' | 'net_deduction_ratio'): Dec {
  let weight = dec(0);
  let weighted = dec(0);
  for (const item of doc.items) {
    const own = item.taxes?.find((t) => sameTax(t, tax));
    if (!own && doc.taxes.length > 1) continue;
    const base = dec(own?.tax_base ?? item.amount).abs();
    const ratio = dec(item[field] ?? 1);
    weight = weight.plus(base);
    weighted = weighted.plus(base.times(ratio));
  }
  if (weight.isZero()) {
    const ratios = doc.items.map((i) => i[field]).filter((r): r is number => r !== null && r !== undefined);
    return ratios.length ? dec(ratios[0]) : dec(1);
  }
  return weighted.div(weight).toDecimalPlaces(6);
}

/**
 * Vendor bill → Dr 504 net, Dr 343 deductible tax (the rest to 504) / Cr 321 total; a vendor
 * credit the other way round. Reverse-charge lines self-assess: Dr 343 claim (rest 504) / Cr 343 out.
 * A final bill's advances Dr 321 / Cr 314 + Cr 343; a vendor's tax document on a paid advance
 * Dr 343 / Cr 314 its VAT (decision 237).
 */
export function ledgerEntryForPurchaseDocument(type: 'purchase_bill' | 'purchase_vendor_credit' | 'purchase_advance_tax_document', doc: PurchaseDocument, opts: PostingOptions): LedgerEntryDraft {
  const legalCurrency = legalCurrencyOf(doc, opts);
  const what = `${type} ${doc.id}`;
  // a purchase document states one rate, its tax rate (legal currency per unit)
  const conv = conversion(doc.currency, legalCurrency, doc.tax_fx_rate, null, what);
  const taxConv = conv;
  const credit = type === 'purchase_vendor_credit';
  const sign = credit ? -1 : 1;

  const parties = documentTaxParties(doc, organisationCountry(opts));
  const lines = doc.taxes.map((line) => {
    const category = lineCategory(doc, line, parties);
    const rc = isReverseChargeCategory(category);
    const base = legal(line.tax_base, line.tax_base_leg, taxConv);
    const stated = legal(line.tax_amount, line.tax_amount_leg, taxConv);
    const amount = rc && stated.isZero() ? roundMoney(base.times(line.tax_rate).div(100)) : stated;
    const amountDoc = rc && dec(line.tax_amount).isZero() ? roundMoney(dec(line.tax_base).times(line.tax_rate).div(100)) : dec(line.tax_amount);
    const ratio = deductionRatio(doc, line, 'tax_deduction_ratio');
    const netRatio = deductionRatio(doc, line, 'net_deduction_ratio');
    const claim = roundMoney(amount.times(ratio));
    const claimDoc = roundMoney(amountDoc.times(ratio));
    return { line, category, rc, base, amount, amountDoc, ratio, netRatio, claim, claimDoc };
  });
  const stdLines = lines.filter((l) => !l.rc);
  const rcLines = lines.filter((l) => l.rc);
  const sum = (xs: Dec[]) => xs.reduce((s, v) => s.plus(v), dec(0));
  const taxLeg = sum(stdLines.map((l) => l.amount));
  const deductible = sum(stdLines.map((l) => l.claim));
  const rcOut = sum(rcLines.map((l) => l.amount));
  const rcClaim = sum(rcLines.map((l) => l.claim));

  const { netLeg, roundingLeg, totalLeg } = documentLegs(doc, taxConv, taxLeg, conv);

  const contact = (doc.vendor as Json | null | undefined) ?? null;
  const orgCountry = organisationCountry(opts);
  const partnerCountry = doc.vendor?.address?.country ?? null;
  /** Where a tax row of this document is reported (VAT return row, control-statement section). */
  const purchaseReporting = (rate: Dec, category: TaxCategory, supply: SupplyKind) =>
    vatReportingFields({ side: 'purchase', orgCountry, partnerCountry, partnerVatNo: doc.vendor?.vat_no, totalLeg, rate, category, supply, controlStatementOverride: credit ? opts.controlStatementOverride : undefined });
  const taxRows = lines.map((l) => {
    const fields = purchaseReporting(dec(l.line.tax_rate), l.category, supplyKind(doc, l.line));
    const dr = l.claim;
    const cr = l.rc ? l.amount : dec(0);
    return {
      ...emptyTaxRow(ACCOUNTS.vat, doc.currency),
      debit: credit ? cr : dr,
      credit: credit ? dr : cr,
      description: l.line.tax_name ?? null,
      tax_rate: dec(l.line.tax_rate),
      tax_rate_rc: l.rc ? dec(l.line.tax_rate) : null,
      is_reverse_charge: l.rc,
      tax_index: l.line.tax_index ?? null,
      tax_code: l.line.tax_code ?? null,
      tax_name: l.line.tax_name ?? null,
      tax_base_in: dec(l.line.tax_base).times(sign),
      tax_base_in_leg: l.base.times(sign),
      tax_amount_in: l.amountDoc.times(sign),
      tax_amount_in_leg: l.amount.times(sign),
      tax_amount_claim: l.claimDoc.times(sign),
      tax_amount_claim_leg: l.claim.times(sign),
      tax_amount_out: l.rc ? l.amountDoc.times(sign) : null,
      tax_amount_out_leg: l.rc ? l.amount.times(sign) : null,
      tax_deduction_ratio: l.ratio,
      net_deduction_ratio: l.netRatio,
      ...fields,
    } satisfies DraftTaxRow;
  });

  const advances = advanceFigures(doc);
  for (const a of advances.taxes) {
    // the input VAT the advance's tax documents claimed, taken back under the category of the supply's line at its rate
    const own = lines.find((l) => !l.rc && dec(l.line.tax_rate).eq(a.tax_rate)) ?? stdLines[0];
    taxRows.push({
      ...emptyTaxRow(ACCOUNTS.vat, doc.currency),
      credit: roundMoney(dec(a.tax_amount_leg)),
      description: own?.line.tax_name ?? null,
      tax_rate: dec(a.tax_rate),
      tax_rate_rc: null,
      is_reverse_charge: false,
      tax_index: own?.line.tax_index ?? null,
      tax_code: a.tax_code ?? own?.line.tax_code ?? null,
      tax_name: own?.line.tax_name ?? null,
      tax_base_in: dec(a.tax_base).negated(),
      tax_base_in_leg: dec(a.tax_base_leg).negated(),
      tax_amount_in: dec(a.tax_amount).negated(),
      tax_amount_in_leg: dec(a.tax_amount_leg).negated(),
      tax_amount_claim: dec(a.tax_amount).negated(),
      tax_amount_claim_leg: dec(a.tax_amount_leg).negated(),
      tax_amount_out: null,
      tax_amount_out_leg: null,
      tax_deduction_ratio: dec(1),
      net_deduction_ratio: dec(1),
      ...purchaseReporting(dec(a.tax_rate), own ? own.category : 'S', own ? supplyKind(doc, own.line) : 'goods'),
    } satisfies DraftTaxRow);
  }

  const rows = postingRows(
    type,
    {
      total: [{ amount: totalLeg }],
      net: netParts(doc, netLeg, conv),
      advance_total: [{ amount: advances.total }],
      advance_tax: [{ amount: advances.tax }],
      advance_net: [{ amount: advances.total.minus(advances.tax) }],
      tax_deductible: [{ amount: deductible }],
      tax_non_deductible: [{ amount: taxLeg.minus(deductible) }],
      rc_tax_out: [{ amount: rcOut }],
      rc_tax_claim: [{ amount: rcClaim }],
      rc_tax_non_deductible: [{ amount: rcOut.minus(rcClaim) }],
      // a bill rounded up owes the vendor more; a vendor credit rounded up is owed us more
      ...roundingFigures(roundingLeg, credit),
    },
    { currency: doc.currency, contact, paid_record: null, payment_reference: doc.payment_reference ?? null, description: null },
    new Set(doc.taxes.length ? ['tax'] : []),
  );
  attachTaxRows(rows, taxRows);
  const ratios = lines.map((l) => l.ratio);
  const entry: LedgerEntryDraft = {
    ...baseEntry(doc, type, legalCurrency, contact),
    tax_deduction_ratio: ratios.length && ratios.every((r) => r.eq(ratios[0])) ? ratios[0] : null,
    net_deduction_ratio: lines.length && lines.every((l) => l.netRatio.eq(lines[0].netRatio)) ? lines[0].netRatio : null,
    total: sums(rows).debit,
    rows,
  };
  assertBalanced(entry);
  return entry;
}
