import type { TenantScope } from '@ledgerline/service-kit';
import { PEPPOL_CHECKS, failedPeppolChecks, type ComplianceInvoice, type ComplianceOrganisation } from '@ledgerline/compliance';
import { Dec } from '@ledgerline/core/money';
import { ublXml, type UblDocument, type UblParty } from '@ledgerline/documents/ubl';
import { checkUblRules } from '@ledgerline/documents/ubl-rules';
import { DOCUMENT_CHECKS, einvoiceSource, refuseIncomplete, taxedLines, text, type EInvoiceKind, type Json } from './einvoice-source.js';

/*
 * A stored sales document as a Peppol BIS Billing 3.0 document (issue 16): what Peppol requires
 * and the document lacks is 422 with the ids the compliance evaluator uses.
 */

/** The rules the document fails for Peppol, in the order a user fixes them. */
export function missingForPeppol(view: Json, org: ComplianceOrganisation, profile: Json | null, kind: EInvoiceKind): Array<{ id: string; description: string }> {
  const invoice = { ...(view as unknown as ComplianceInvoice), id: Number(view.id) };
  const failed = new Set(failedPeppolChecks(invoice, org));
  // a credit note names the invoice it corrects instead of a due date (BR-CO-25 is an invoice rule)
  if (kind.rendering === 'credit_note') failed.delete('BR-CO-25');
  const checks = PEPPOL_CHECKS.filter((c) => failed.has(c.id));
  const own = DOCUMENT_CHECKS.filter((c) => !c.passes(view, org, profile));
  return [...checks, ...own].map((c) => ({ id: c.id, description: c.description }));
}

function addressOfParty(a: Json | null | undefined, fallbackCountry: string) {
  return {
    street: text(a?.address1),
    additionalStreet: text(a?.address2),
    city: text(a?.city),
    postalZone: text(a?.postal_code),
    country: (text(a?.country) ?? fallbackCountry).toUpperCase(),
  };
}

/** The Peppol document of a stored invoice or credit note, or 422 naming what it lacks. */
export async function salesDocumentUbl(scope: TenantScope, kind: EInvoiceKind, id: number): Promise<{ xml: string; no: string }> {
  const { em, orgId } = scope;
  const src = await einvoiceSource(scope, kind, id);
  const { view, profile, org, customer, issuer, credited } = src;
  refuseIncomplete(kind, 'a Peppol document', missingForPeppol(view, org, profile, kind));

  const sellerCountry = org.country!.toUpperCase();
  const buyerCountry = text(src.buyerAddress?.country)!.toUpperCase();
  const seller: UblParty = {
    name: text(profile?.name) ?? text(issuer.name)!,
    peppolId: text(org.peppol_id)!,
    vatId: text(org.vat_no),
    registrationId: text(profile?.reg_no ?? issuer.reg_no),
    address: addressOfParty((profile?.address as Json | undefined) ?? issuer.address, sellerCountry),
  };
  const buyer: UblParty = {
    name: text(customer.business_name ?? customer.display_name)!,
    peppolId: text(customer.peppol_id)!,
    vatId: text(customer.vat_no),
    registrationId: text(customer.reg_no),
    email: text(customer.email),
    address: addressOfParty(src.buyerAddress, buyerCountry),
  };

  const { lines, subtotals } = taxedLines(src);
  // a supply outside the scope of VAT names no VAT identifier of either party (BR-O-02)
  if (lines.some((l) => l.category === 'O')) {
    seller.vatId = null;
    buyer.vatId = null;
  }
  // the supply's date and place (BG-13): the tax point and the shipping address, else the buyer's;
  // an intra-Community supply must carry both (BR-IC-11, BR-IC-12), and other documents carry
  // them too, as the date the VAT is due for
  const shipTo = (view.shipping_address as Json | null | undefined) ?? null;
  const delivery = {
    date: text(view.date_taxable) ?? String(view.date_issued),
    address: text(shipTo?.country) ? addressOfParty(shipTo, buyerCountry) : buyer.address,
  };
  const precision = Number(view.precision ?? 2);
  const bank = (profile?.bank_account as Json | undefined) ?? null;
  const iban = text(bank?.iban) ?? text(view.bank_account?.iban);
  const legal = text(view.currency_leg);
  const ubl: UblDocument = {
    kind: kind.rendering === 'credit_note' ? 'credit_note' : 'invoice',
    number: String(view.no),
    issueDate: String(view.date_issued),
    dueDate: text(view.date_due),
    currency: String(view.currency),
    taxCurrency: legal && legal !== view.currency ? { code: legal, taxAmount: view.tax_amount_leg ?? 0 } : null,
    note: text(view.notes),
    buyerReference: text(view.buyer_reference),
    orderReference: text(view.order_reference),
    billingReference: view.credited_doc_no ? { number: String(view.credited_doc_no), issueDate: credited?.issueDate ?? null } : null,
    seller,
    buyer,
    delivery,
    payment: iban && Dec(view.amount_due ?? 0).gt(0) ? { iban, bic: text(bank?.bic), reference: text(view.payment_reference) ?? String(view.no).replace(/\D/g, '').slice(-10) } : null,
    paymentTerms: text(view.payment_term?.name),
    lines: lines.map((l) => ({ name: l.name, description: l.description, quantity: l.quantity, unitCode: l.unitCode, netAmount: l.net, category: l.category, rate: l.rate, sellersItemId: l.sellersItemId })),
    taxSubtotals: subtotals.map((s) => ({ category: s.category, rate: s.rate, taxableAmount: s.taxableAmount.toFixed(precision), taxAmount: s.taxAmount.toFixed(precision) })),
    totals: {
      lineExtension: lines.reduce((a, l) => a.plus(Dec(l.net)), Dec(0)).toFixed(precision),
      taxExclusive: view.subtotal_amount,
      taxAmount: view.tax_amount,
      // the stored total is what is asked for, the rounding included; BT-112 is the total before it
      taxInclusive: Dec(view.total_amount).minus(view.rounding_amount ?? 0).toFixed(precision),
      rounding: view.rounding_amount ?? 0,
      prepaid: view.amount_paid ?? 0,
      payable: view.amount_due ?? view.total_amount,
    },
    precision,
  };
  const xml = ublXml(ubl);
  // every EN 16931 and Peppol rule that can apply, checked on the document as written: a receiver
  // never gets one its validator refuses (422 naming the rules instead)
  refuseIncomplete(
    kind,
    'a Peppol document',
    checkUblRules(xml).map((f) => ({ id: f.id, description: `${f.text}: ${f.message}` })),
  );
  return { xml, no: String(view.no) };
}
