import type { Template } from '@ledgerline/contracts';
import { ValidationError, organisationReplica, type TenantScope } from '@ledgerline/service-kit';
import { canonicalCulture, cultureOfCountry, DEFAULT_CULTURE, renderDocumentHtml, type DocumentKind, type PdfPrinter } from '@ledgerline/rendering';
import type { SalesDocType, SalesDocument } from '../db/entities.js';
import { getSalesDocument, type SalesDocumentKind } from './post.js';
import { documentView } from './view.js';
import { resolveTemplate } from '../templates/replicas.js';
import { invoicePaymentQr } from './payment-qr.js';
import { paymentDetails } from './payment-details.js';

/** What rendering needs of a document kind. */
type RenderedKind = Pick<SalesDocumentKind<SalesDocType, never>, 'docType' | 'label' | 'rendering' | 'fileName'>;

export interface RenderOptions {
  layout?: string;
  culture?: string;
}

export interface RenderedDocument {
  doc: SalesDocument;
  view: Record<string, unknown>;
  template: Template | null;
  culture: string;
  html: string;
  /** The organisation profile as replicated from settings (null until it has arrived). */
  organisation: Record<string, unknown> | null;
}

/**
 * The rendering culture: the one asked for; else the document's locale; else the customer's
 * preferred locale; else the language of the customer's country; else of the organisation's
 * country; else en-US. A Czech supplier's invoice to a Czech customer is Czech without asking.
 */
export function cultureFor(asked: string | undefined, view: Record<string, unknown>, organisationCountry?: string | null): string {
  if (asked !== undefined && asked !== '') {
    const c = canonicalCulture(asked);
    if (!c) throw new ValidationError(`"${asked}" is not a language tag`, [{ path: 'culture', message: 'a BCP 47 language tag such as cs-CZ', code: 'invalid_culture' }]);
    return c;
  }
  const customer = (view.customer ?? {}) as Record<string, unknown>;
  for (const candidate of [view.culture, view.document_locale, customer.preferred_locale]) {
    if (typeof candidate === 'string' && candidate) {
      const c = canonicalCulture(candidate);
      if (c) return c;
    }
  }
  const billing = (view.billing_address ?? {}) as Record<string, unknown>;
  const customerAddress = (customer.address ?? {}) as Record<string, unknown>;
  return cultureOfCountry(billing.country ?? customerAddress.country) ?? cultureOfCountry(organisationCountry) ?? DEFAULT_CULTURE;
}

/**
 * Renders a stored sales document to HTML with the chosen template. The figures are those stored
 * with the document (architecture §4: never recomputed); the organisation replica only fills issuer
 * data the document snapshot lacks (the bank account).
 */
export async function renderSalesDocument(scope: TenantScope, kind: RenderedKind, id: number, opts: RenderOptions): Promise<RenderedDocument> {
  const { em, orgId } = scope;
  const doc = await getSalesDocument(em, kind, id);
  const view = documentView(doc);
  const replica = await organisationReplica(scope);
  const culture = cultureFor(opts.culture, view, replica?.country);
  const template = await resolveTemplate(em, opts.layout, view.template_layout);
  const organisation = replica?.profile ?? null;
  // the documents a customer pays by: an invoice, and a proforma asking for the advance
  const paymentQr = kind.rendering === 'invoice' || kind.rendering === 'proforma' ? await invoicePaymentQr(view, organisation) : null;
  const payment = { ...paymentDetails(view, organisation, kind.rendering) };
  const html = await renderDocumentHtml({ document: view, kind: kind.rendering, culture, template, organisation, paymentQr, payment });
  return { doc, view, template, culture, html, organisation };
}

export async function printSalesDocument(printer: PdfPrinter, rendered: RenderedDocument): Promise<Buffer> {
  return printer.print(rendered.html, rendered.template?.pdf_options ?? null);
}

/** `Invoice-FV2026001.pdf` (or `.xml`): a file name safe in a Content-Disposition header and a mail part. */
export function documentFileName(kind: Pick<RenderedKind, 'fileName'>, no: string, extension: 'pdf' | 'xml' | 'isdoc' = 'pdf'): string {
  return `${kind.fileName}-${no.replace(/[^A-Za-z0-9._-]+/g, '_')}.${extension}`;
}
