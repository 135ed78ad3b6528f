import { Liquid } from 'liquidjs';
import { DEFAULT_TEMPLATE_HTML } from './default-template.js';
import {
  builtInLabels,
  canonicalCulture,
  DEFAULT_CULTURE,
  formatDate,
  formatMoney,
  formatNumber,
  formatPercent,
  interpolate,
} from './locale.js';

/**
 * The Liquid engine for user-supplied templates (architecture §7), free of service code so that it can
 * run inside the render worker (`sandbox.ts`):
 * - every output is HTML-escaped (`outputEscape: 'escape'`; `| raw` is neutralised, so a
 *   template cannot switch escaping off for values that come from documents);
 * - no file system: `include`, `render` and `layout` are refused when the template is parsed,
 *   and the engine has an empty in-memory template map in case any lookup happens anyway;
 * - no code execution: Liquid has no eval; only own properties of the data are readable
 *   (`ownPropertyOnly`), so `constructor`/`__proto__` lead nowhere;
 * - bounded work inside the engine: template size (`parseLimit`), render time (`renderLimit`) and
 *   memory (`memoryLimit`). These are LiquidJS's own cooperative counters and do not cover every
 *   construct, which is why rendering also runs in a worker with a heap cap and a wall clock.
 */

export const LIMITS = {
  /** Characters of template source. */
  parseLimit: 1_000_000,
  /** Milliseconds of rendering. */
  renderLimit: 2_000,
  /** Rough units of memory LiquidJS counts (string lengths, array sizes). */
  memoryLimit: 20_000_000,
};

const FORBIDDEN_TAGS = ['include', 'render', 'layout'];

function refuse(name: string): Parameters<Liquid['registerTag']>[1] {
  return {
    parse() {
      throw new Error(`the {% ${name} %} tag is not available in templates (no file access)`);
    },
    render() {
      return '';
    },
  };
}

export interface RenderScope {
  culture: string;
  currency: string | null;
  precision: number;
  labels: Record<string, string>;
}

function createEngine(scope?: RenderScope): Liquid {
  const engine = new Liquid({
    outputEscape: 'escape',
    ownPropertyOnly: true,
    strictFilters: true,
    strictVariables: false,
    templates: {},
    relativeReference: false,
    dynamicPartials: false,
    cache: false,
    jsTruthy: false,
    parseLimit: LIMITS.parseLimit,
    renderLimit: LIMITS.renderLimit,
    memoryLimit: LIMITS.memoryLimit,
  });
  for (const t of FORBIDDEN_TAGS) engine.registerTag(t, refuse(t));
  // A plain filter named raw: not the engine's "skip escaping" marker, so output stays escaped.
  engine.registerFilter('raw', (v: unknown) => v);
  const s: RenderScope = scope ?? { culture: DEFAULT_CULTURE, currency: null, precision: 2, labels: { ...builtInLabels(DEFAULT_CULTURE) } };
  engine.registerFilter('money', (v: unknown, currency?: unknown, precision?: unknown) =>
    formatMoney(v, s.culture, typeof currency === 'string' && currency ? currency : s.currency, typeof precision === 'number' ? precision : s.precision),
  );
  engine.registerFilter('number', (v: unknown, min?: unknown, max?: unknown) =>
    formatNumber(v, s.culture, typeof min === 'number' ? min : 0, typeof max === 'number' ? max : 6),
  );
  engine.registerFilter('percent', (v: unknown) => formatPercent(v, s.culture));
  engine.registerFilter('format_date', (v: unknown) => formatDate(v, s.culture));
  engine.registerFilter('css_string', (v: unknown) => cssString(v));
  engine.registerFilter('t', (key: unknown, ...pairs: unknown[]) => {
    const k = String(key ?? '');
    const text = s.labels[k] ?? k;
    const values: Record<string, string> = {};
    for (let i = 0; i + 1 < pairs.length; i += 2) values[String(pairs[i])] = String(pairs[i + 1] ?? '');
    return pairs.length ? interpolate(text, values) : text;
  });
  return engine;
}

/**
 * A value as the inside of a double-quoted CSS string (`content: "{{ x | css_string }}"` in a page
 * margin box): every character that could end the string, the rule or the style element, or that
 * HTML escaping would turn into an entity the style sheet would print as it is, is written as a
 * CSS hex escape; a line break is a CSS line break.
 */
export function cssString(v: unknown): string {
  const text = v === null || v === undefined ? '' : String(v);
  return text.replace(/[\u0000-\u001f\u007f"'&<>\\]/g, (c) => (c === '\n' ? '\\A ' : `\\${c.charCodeAt(0).toString(16).toUpperCase()} `));
}

const checker = createEngine();

/** Parses a template without rendering it; throws the engine's error when it cannot be used. */
export function parseTemplate(html: string): void {
  checker.parse(html);
}

export function messageOf(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  // LiquidJS appends the template excerpt and a JS stack; the first line says what is wrong.
  return m.split('\n')[0].slice(0, 500);
}

export interface TemplateLike {
  code?: string | null;
  html_template?: string | null;
  config?: { brand_color_primary?: string | null; brand_color_secondary?: string | null; brand_color_alternative?: string | null } | null;
  l10n?: Array<{ culture: string; resource: string; value: string }> | null;
}

export type DocumentKind = 'invoice' | 'credit_note' | 'proforma' | 'advance_tax_document';

export interface RenderRequest {
  /** The stored document as the API answers it (figures are formatted, never recomputed). */
  document: Record<string, unknown>;
  kind: DocumentKind;
  culture: string;
  /** The chosen template; the default template when null or when it has no html_template. */
  template?: TemplateLike | null;
  /** The organisation profile, for fields the document's `org` snapshot lacks (bank account). */
  organisation?: Record<string, unknown> | null;
  /** A payment QR code to print (`kind`: spayd or epc; `image`: a PNG data URI), or none. */
  paymentQr?: { kind: string; payload: string; image: string } | null;
  /**
   * How the document is paid, as printed: method, IBAN in groups of four, the domestic account
   * and the Czech/Slovak symbols (the service works them out; templates read them as `payment`).
   */
  payment?: Record<string, unknown> | null;
}

const COLOUR = /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,30}|rgba?\(\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*(,\s*(0|1|0?\.\d+))?\s*\))$/;

/** A CSS colour safe to place in a style sheet, or the fallback. */
export function safeColour(v: string | null | undefined, fallback: string): string {
  return v && COLOUR.test(v.trim()) ? v.trim() : fallback;
}

/** Labels for a culture: the built-in ones overlaid with the template's `l10n` resources. */
export function labelsFor(culture: string, template?: TemplateLike | null): Record<string, string> {
  const labels: Record<string, string> = { ...builtInLabels(culture) };
  const l10n = template?.l10n ?? [];
  const lang = culture.split('-')[0].toLowerCase();
  // Same language first, the exact culture last (it wins).
  for (const r of l10n) if (r.culture.toLowerCase() === lang) labels[r.resource] = r.value;
  for (const r of l10n) if (r.culture.toLowerCase() === culture.toLowerCase()) labels[r.resource] = r.value;
  return labels;
}

/**
 * Renders a document to HTML in the calling thread. Services call `renderDocumentHtml`, which runs
 * this inside the render worker; only the worker calls it directly.
 */
export async function renderInThisThread(req: RenderRequest): Promise<string> {
  const culture = canonicalCulture(req.culture) ?? DEFAULT_CULTURE;
  const doc = req.document;
  const labels = labelsFor(culture, req.template);
  const currency = typeof doc.currency === 'string' ? doc.currency : null;
  const precision = typeof doc.precision === 'number' ? doc.precision : 2;
  const engine = createEngine({ culture, currency, precision, labels });
  const source = req.template?.html_template?.trim() ? req.template.html_template : DEFAULT_TEMPLATE_HTML;
  const cfg = req.template?.config ?? {};
  const org = { ...((req.organisation ?? {}) as Record<string, unknown>), ...((doc.org ?? {}) as Record<string, unknown>) };
  if (!org.bank_account && req.organisation?.bank_account) org.bank_account = req.organisation.bank_account;
  const data = {
    doc,
    org,
    customer: doc.customer ?? {},
    document_type: req.kind,
    payment_qr: req.paymentQr ?? null,
    payment: req.payment ?? {},
    title: labels[req.kind] ?? req.kind,
    culture,
    currency,
    labels,
    brand: {
      primary: safeColour(cfg.brand_color_primary, '#1f4e79'),
      secondary: safeColour(cfg.brand_color_secondary, '#52606d'),
      alternative: safeColour(cfg.brand_color_alternative, '#e4e7eb'),
    },
  };
  const tpl = engine.parse(source);
  return (await engine.render(tpl, data)) as string;
}
