import { BusinessRuleError, ConflictError, UpstreamError, insertRows, legalCurrencyOf, parseOrThrow, sqlRows, type TenantContext } from '@ledgerline/service-kit';
import { postPurchaseDocument } from '../purchase-documents/post.js';
import { RPC_SUBJECTS, contactMatchAnswerSchema, type Contact, type ImportedDocument } from '@ledgerline/contracts';
import { compareTotals, readEInvoice, type EmbeddedFile } from '../purchase-documents/einvoice-import.js';
import { insertAttachments, sniffAttachmentType, type NewAttachment, type S3Store } from '@ledgerline/posted-documents';
import { PURCHASE_ATTACHMENTS_TABLE } from './attachments.js';
import { identifierSpelling, type ReadEInvoice } from '../purchase-documents/einvoice-reading.js';
import { VENDOR_CREDITS } from '../vendor-credits/vendor-credit-kind.js';
import { EInvoiceImportSchema } from '../db/entities.js';
import { BILLS } from './bill-kind.js';
import type { PurchaseDocumentKind, PurchaseRequestSchema } from '../purchase-documents/kind.js';

/*
 * POST /v1/purchase/bills/import (issue 16): a received UBL or ISDOC e-invoice becomes a vendor
 * bill, a credit note a vendor credit, through the same posting as a bill typed by hand (so it is
 * numbered, announced and in the ledger). The document's totals must be what its lines give;
 * one vendor's document is imported once.
 */


function duplicate(no: string): ConflictError {
  return new ConflictError(`The vendor's document ${no} has already been imported`, 'document_already_imported');
}

/**
 * 422 `einvoice_buyer_mismatch` when the document names a buyer that is not this organisation: its
 * VAT id, or else its Peppol address, differs from the organisation's (a document sent to a sister
 * company or forwarded by mistake would be booked as ours). A document that names no buyer
 * identifier, or an organisation without one, is not judged; `accept_other_buyer` books it anyway.
 */
async function refuseOtherBuyer(ctx: TenantContext, buyer: ReadEInvoice['buyer']): Promise<void> {
  const [org] = await sqlRows<{ vat_no: string | null; peppol_id: string | null }>(
    ctx.em,
    "select profile->>'vat_no' as vat_no, profile->>'peppol_id' as peppol_id from kit_organisations where org_id = ?",
    [ctx.orgId],
  );
  const ours = { vat: identifierSpelling(org?.vat_no), peppol: identifierSpelling(org?.peppol_id) };
  const theirs = { vat: identifierSpelling(buyer.vat_no), peppol: identifierSpelling(buyer.peppol_id) };
  const mismatch =
    ours.vat && theirs.vat ? (ours.vat !== theirs.vat ? `VAT id ${buyer.vat_no}, not ours (${org!.vat_no})` : null) : ours.peppol && theirs.peppol && ours.peppol !== theirs.peppol ? `Peppol address ${buyer.peppol_id}, not ours (${org!.peppol_id})` : null;
  if (!mismatch) return;
  throw new BusinessRuleError(
    `The document is addressed to another buyer: ${mismatch}. Import it with ?accept_other_buyer=true if it is meant for this organisation`,
    'einvoice_buyer_mismatch',
    [{ path: 'AccountingCustomerParty', message: mismatch, code: 'einvoice_buyer_mismatch' }],
  );
}

/** The XML as received and the embedded files whose bytes are a kind kept (others stay inside the XML only). */
function keptFiles(xml: string, no: string, embedded: readonly EmbeddedFile[]): NewAttachment[] {
  const files: NewAttachment[] = [{ fileName: `${no.replace(/[^\w.-]+/g, '_').slice(0, 200)}.xml`, contentType: 'application/xml', bytes: Buffer.from(xml, 'utf8'), source: 'einvoice' }];
  for (const f of embedded) {
    const type = sniffAttachmentType(f.bytes);
    if (type) files.push({ fileName: f.fileName, contentType: type, bytes: f.bytes, source: 'einvoice_embedded' });
  }
  return files;
}

export async function importEInvoice(
  ctx: TenantContext,
  xml: string,
  query: { type_id?: number; tax_fx_rate?: number; accept_other_buyer?: boolean },
  store: S3Store | null = null,
): Promise<ImportedDocument> {
  const read = readEInvoice(xml);
  if (!query.accept_other_buyer) await refuseOtherBuyer(ctx, read.buyer);
  const kind = (read.kind === 'bill' ? BILLS : VENDOR_CREDITS) as PurchaseDocumentKind<'bill' | 'vendor_credit', PurchaseRequestSchema>;
  if (query.type_id !== undefined) read.request.type = { id: query.type_id };
  if (query.tax_fx_rate !== undefined) read.request.tax_fx_rate = query.tax_fx_rate;
  else if (read.statedRate && read.statedRate.to === (await legalCurrencyOf(ctx))) {
    // the document states the rate to our legal currency (ISDOC's CurrRate): it is the rate its VAT was computed at
    read.request.tax_fx_rate = Number(read.statedRate.rate);
  }
  const req = parseOrThrow(kind.requestSchema, read.request);
  const no = req.vendor_doc_no!;
  const key = { orgId: ctx.orgId, kind: kind.kind, vendorKey: read.vendorKey, vendorDocNo: no };
  // the common repeat is answered before any work; a concurrent one meets the registry's key below
  const [seen] = await sqlRows(ctx.em, 'select 1 from einvoice_imports where org_id = ? and kind = ? and vendor_key = ? and vendor_doc_no = ?', [key.orgId, key.kind, key.vendorKey, key.vendorDocNo]);
  if (seen) throw duplicate(no);
  await matchVendorContact(ctx, req);
  const rates = new Set(req.items.map((i) => String(i.taxes?.[0]?.tax_rate ?? 0))).size;
  const { view } = await postPurchaseDocument(ctx, kind, req as never, {
    expect: (computed) => compareTotals(read.totals, computed, rates),
    alongside: async (em, documentId) => {
      const inserted = await insertRows(em, EInvoiceImportSchema, [{ ...key, documentId }], { onConflict: 'do nothing', returning: ['document_id'] });
      if (inserted.length === 0) throw duplicate(no);
      // the received document is the original the law keeps: its XML, and the files it carries
      await insertAttachments({ em, orgId: ctx.orgId }, PURCHASE_ATTACHMENTS_TABLE, documentId, keptFiles(xml, no, read.embedded), store);
    },
  });
  return read.kind === 'bill'
    ? { kind: 'bill', bill: view as ImportedDocument['bill'], vendor_credit: null }
    : { kind: 'vendor_credit', bill: null, vendor_credit: view as ImportedDocument['vendor_credit'] };
}

/**
 * The seller of a received e-invoice in the directory (decision 234): the contact with its VAT
 * number, else its Peppol id, else a new contact made of what the document says. The bill names it
 * (`contact_id`, and its vendor's id), so aged payables and the vendor's statements group its bills
 * with those entered by hand. A seller with neither identifier is not matched.
 */
async function matchVendorContact(ctx: TenantContext, req: { contact_id?: number | null; vendor?: Contact | null; bank_account_number?: string | null }): Promise<void> {
  const vendor = req.vendor;
  if (!vendor) return;
  if (!vendor.vat_no && !vendor.peppol_id) return;
  let asked: unknown;
  try {
    asked = await ctx.ask(RPC_SUBJECTS.settingsContactMatch, {
      party: { business_name: vendor.business_name, reg_no: vendor.reg_no, vat_no: vendor.vat_no, peppol_id: vendor.peppol_id, email: vendor.email, address: vendor.address },
      bank_account: req.bank_account_number ?? null,
    });
  } catch (err) {
    // a settings without the directory (an earlier release beside this one) leaves the bill unmatched, as before
    if (err instanceof UpstreamError) return;
    throw err;
  }
  const answer = contactMatchAnswerSchema.parse(asked);
  if (answer.contact_id === null) return;
  req.contact_id = answer.contact_id;
  req.vendor = { ...vendor, id: answer.contact_id };
}
