import type { TenantScope } from '@ledgerline/service-kit';
import type { ComplianceOrganisation } from '@ledgerline/compliance';
import { Dec } from '@ledgerline/core/money';
import { isdocXml, splitStreet, type IsdocAmount, type IsdocDocument, type IsdocLine, type IsdocParty } from '@ledgerline/documents/isdoc';
import { documentVariableSymbol, domesticAccountOf, normaliseIban } from '@ledgerline/documents';
import { DOCUMENT_CHECKS, addOrNull, decOrNull, einvoiceSource, refuseIncomplete, taxedLines, text, type EInvoiceKind, type Json } from './einvoice-source.js';

/*
 * A stored sales document as an ISDOC 6.0.2 document (issue 16), the Czech e-invoice.
 */

/** What ISDOC needs beyond the parties' names and countries: a credit note names the invoice it corrects. */
export function missingForIsdoc(view: Json, org: ComplianceOrganisation, profile: Json | null, kind: EInvoiceKind): Array<{ id: string; description: string }> {
  const own = DOCUMENT_CHECKS.filter((c) => !c.passes(view, org, profile));
  if (kind.rendering === 'credit_note' && !text(view.credited_doc_no)) {
    own.push({ id: 'ISDOC-ORIGINAL', description: 'A credit note (DocumentType 2) names the invoice it corrects: give the credit note credited_doc_id', passes: () => false });
  }
  return own.map((c) => ({ id: c.id, description: c.description }));
}

const COUNTRY_NAMES = new Intl.DisplayNames(['cs'], { type: 'region' });

function isdocParty(name: string, registrationId: string | null, vatId: string | null, email: string | null, address: Json | null | undefined, country: string): IsdocParty {
  const { street, buildingNumber } = splitStreet(text(address?.address1));
  const code = (text(address?.country) ?? country).toUpperCase();
  let countryName: string | null = null;
  try {
    countryName = COUNTRY_NAMES.of(code) ?? null;
  } catch {
    countryName = null; // not a region code Intl knows: the code alone identifies it
  }
  return {
    name,
    registrationId,
    vatId,
    email,
    address: { street, buildingNumber, city: text(address?.city), postalZone: text(address?.postal_code), country: code, countryName: countryName ?? code },
  };
}

/**
 * The ISDOC 6.0.2 document of a stored invoice or credit note. Amounts in the organisation's
 * legal currency, with the document's own currency beside them when it differs. Lines are the
 * document's items and shipping charges; what a document discount took off a rate's recap is a
 * line of its own, so the lines add up to the stored recap in both currencies.
 */
export async function salesDocumentIsdoc(scope: TenantScope, kind: EInvoiceKind, id: number): Promise<{ xml: string; no: string }> {
  const { em, orgId } = scope;
  const src = await einvoiceSource(scope, kind, id);
  const { view, profile, org, customer, issuer, credited } = src;
  refuseIncomplete(kind, 'ISDOC', missingForIsdoc(view, org, profile, kind));

  const precision = Number(view.precision ?? 2);
  const currency = String(view.currency);
  const legal = text(view.currency_leg) ?? currency;
  const foreign = legal !== currency ? { code: currency, rate: view.fx_rate ?? 1, coefficient: view.currency_coef ?? 1 } : null;
  const toLegal = (v: unknown) => (foreign ? Dec(v as string | number).times(foreign.rate).div(foreign.coefficient) : Dec(v as string | number)).toDecimalPlaces(precision);
  const pair = (documentValue: unknown, legalValue?: Dec | null): IsdocAmount => ({
    document: Dec(documentValue as string | number).toFixed(precision),
    local: (legalValue ?? toLegal(documentValue)).toFixed(precision),
  });

  const { lines: itemLines, subtotals, category } = taxedLines(src);
  const lines: Array<IsdocLine & { key: string }> = itemLines.map((l) => ({
    key: `${l.category}|${l.category === 'O' ? '' : Dec(l.rate).toString()}`,
    description: [l.name, l.description].filter(Boolean).join(' — '),
    quantity: l.quantity,
    unitCode: l.unitCode,
    net: pair(l.net, l.netLegal),
    tax: pair(l.tax, l.taxLegal),
    rate: l.rate,
    sellersItemId: l.sellersItemId,
  }));
  for (const charge of (view.shipping_charges ?? []) as Json[]) {
    const taxes = (charge.taxes ?? []) as Json[];
    const cat = taxes[0] ? category(taxes[0]) : 'Z';
    const rate = taxes[0]?.tax_rate ?? 0;
    lines.push({
      key: `${cat}|${cat === 'O' ? '' : Dec(rate).toString()}`,
      description: text(charge.title) ?? 'Doprava',
      quantity: 1,
      net: pair(charge.net_amount ?? charge.amount, taxes[0] ? decOrNull(taxes[0].tax_base_leg) : null),
      tax: pair(
        taxes.reduce<Dec>((a, t) => a.plus(Dec(t.tax_amount ?? 0)), Dec(0)),
        taxes.reduce<Dec | null>((a, t) => addOrNull(a, decOrNull(t.tax_amount_leg)), Dec(0)),
      ),
      rate,
    });
  }
  // what the recap holds beyond the lines (a document discount not allocated to them) is a line of its own
  for (const s of subtotals) {
    const key = `${s.category}|${s.category === 'O' ? '' : s.rate}`;
    const mine = lines.filter((l) => l.key === key);
    const total = (f: (l: IsdocLine) => string | number) => mine.reduce((a, l) => a.plus(Dec(f(l))), Dec(0));
    const taxable = pair(s.taxableAmount.minus(total((l) => l.net.document)), (s.taxableLegal ?? toLegal(s.taxableAmount)).minus(total((l) => l.net.local)));
    const tax = pair(s.taxAmount.minus(total((l) => l.tax.document)), (s.taxLegal ?? toLegal(s.taxAmount)).minus(total((l) => l.tax.local)));
    if ([taxable.document, taxable.local, tax.document, tax.local].every((v) => Dec(v).isZero())) continue;
    // named in Czech like the rest of an ISDOC: a discount, a surcharge, or only the conversion's rounding
    const description = Dec(taxable.document).lt(0) ? 'Sleva' : Dec(taxable.document).gt(0) ? 'Přirážka' : 'Zaokrouhlení přepočtu kurzem';
    lines.push({ key, description, quantity: 1, net: taxable, tax, rate: s.rate });
  }

  // the stored total is what is asked for, the rounding included; TaxInclusiveAmount is the total before it
  const rounding = pair(view.rounding_amount ?? 0, decOrNull(view.rounding_amount_leg));
  const legalTotal = decOrNull(view.total_amount_leg);
  const taxInclusive = pair(Dec(view.total_amount).minus(rounding.document), legalTotal ? legalTotal.minus(rounding.local) : null);
  // a final invoice's advances (decision 236): what their tax documents declared is claimed per rate
  // (TaxedDeposits); the rest of them, and any other payment, is paid (NonTaxedDeposits, PaidDepositsAmount)
  const advances = ((view.advances ?? []) as Json[]).map((a) => ({
    id: String(a.proforma_no),
    variableSymbol: String(a.proforma_no).replace(/\D/g, '').slice(-10),
    untaxed: Dec(a.untaxed_amount as number),
    taxes: ((a.taxes ?? []) as Json[]).map((t) => ({ rate: Dec(t.tax_rate as number), taxable: pair(t.tax_base, Dec(t.tax_base_leg as number)), tax: pair(t.tax_amount, Dec(t.tax_amount_leg as number)) })),
  }));
  const claimedGross = advances.flatMap((a) => a.taxes).reduce((s, t) => s.plus(t.taxable.document).plus(t.tax.document), Dec(0));
  const claimedGrossLegal = advances.flatMap((a) => a.taxes).reduce((s, t) => s.plus(t.taxable.local).plus(t.tax.local), Dec(0));
  const paid = pair(Dec(view.amount_paid ?? 0).minus(claimedGross), toLegal(view.amount_paid ?? 0).minus(claimedGrossLegal));
  const totals: IsdocDocument['totals'] = {
    taxExclusive: pair(view.subtotal_amount, decOrNull(view.subtotal_amount_leg)),
    taxAmount: pair(view.tax_amount ?? 0, decOrNull(view.tax_amount_leg)),
    taxInclusive,
    rounding,
    paid,
    // what is left in the legal currency is the stored total less what was paid, not the converted balance
    payable: { document: Dec(view.amount_due ?? view.total_amount).toFixed(precision), local: Dec(taxInclusive.local).plus(rounding.local).minus(paid.local).minus(claimedGrossLegal).toFixed(precision) },
  };
  const claimedAt = (rate: string | number) => {
    const mine = advances.flatMap((a) => a.taxes).filter((t) => t.rate.eq(Dec(rate)));
    if (!mine.length) return null;
    const add = (f: (t: (typeof mine)[number]) => IsdocAmount) =>
      pair(
        mine.reduce((s, t) => s.plus(f(t).document), Dec(0)),
        mine.reduce((s, t) => s.plus(f(t).local), Dec(0)),
      );
    return { taxable: add((t) => t.taxable), tax: add((t) => t.tax) };
  };
  const deposits = advances.length
    ? {
        taxed: advances.flatMap((a) =>
          a.taxes.map((t) => ({ id: a.id, variableSymbol: a.variableSymbol, rate: t.rate.toString(), taxable: t.taxable, inclusive: pair(Dec(t.taxable.document).plus(t.tax.document), Dec(t.taxable.local).plus(t.tax.local)) })),
        ),
        nonTaxed: advances.filter((a) => !a.untaxed.isZero()).map((a) => ({ id: a.id, variableSymbol: a.variableSymbol, amount: pair(a.untaxed) })),
      }
    : null;

  const sellerCountry = org.country!.toUpperCase();
  const buyerCountry = text(src.buyerAddress?.country)!.toUpperCase();
  const bank = (profile?.bank_account as Json | undefined) ?? null;
  const iban = normaliseIban(text(bank?.iban) ?? text(view.bank_account?.iban));
  const domestic = domesticAccountOf(iban);
  const isCredit = kind.rendering === 'credit_note';
  const isdoc: IsdocDocument = {
    kind: isCredit ? 'credit_note' : 'invoice',
    number: String(view.no),
    uuid: String(view.uid),
    issueDate: String(view.date_issued),
    taxPointDate: text(view.date_taxable) ?? String(view.date_issued),
    dueDate: text(view.date_due),
    vatApplicable: org.is_vat_payer !== false,
    taxesIncluded: view.taxes_included === true,
    note: text(view.notes),
    localCurrency: legal,
    foreign,
    orderReference: text(view.order_reference),
    original: isCredit ? { number: String(view.credited_doc_no), issueDate: credited?.issueDate ?? null, uuid: credited?.uid ?? null } : null,
    seller: isdocParty(text(profile?.name) ?? text(issuer.name)!, text(profile?.reg_no ?? issuer.reg_no), text(org.vat_no), text(profile?.email ?? issuer.email), (profile?.address as Json | undefined) ?? issuer.address, sellerCountry),
    buyer: isdocParty(text(customer.business_name ?? customer.display_name)!, text(customer.reg_no), text(customer.vat_no), text(customer.email), src.buyerAddress, buyerCountry),
    lines,
    taxSubtotals: subtotals.map((s) => ({
      rate: s.category === 'O' ? 0 : s.rate,
      taxable: pair(s.taxableAmount, s.taxableLegal),
      tax: pair(s.taxAmount, s.taxLegal),
      ...(s.category === 'E' || s.category === 'O' ? { vatApplicable: false } : {}),
      // reverse charge between two parties of one country is the local one (§ 92a); across borders the buyer self-assesses without it
      ...(s.category === 'AE' && sellerCountry === buyerCountry ? { localReverseCharge: true } : {}),
      claimed: s.category === 'O' ? null : claimedAt(s.rate),
    })),
    deposits,
    totals,
    // a credit note asks for no payment; an invoice names the account and the variable symbol it is paid by
    payment:
      !isCredit && iban && Dec(view.amount_due ?? 0).gt(0)
        ? {
            amount: Dec(view.amount_due).toFixed(precision),
            dueDate: text(view.date_due),
            accountNumber: domestic?.accountNumber ?? null,
            bankCode: domestic?.bankCode ?? null,
            iban,
            bic: text(bank?.bic),
            variableSymbol: documentVariableSymbol(view.payment_reference, view.no),
          }
        : null,
    precision,
  };
  return { xml: isdocXml(isdoc), no: String(view.no) };
}
