import { existsSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { BusinessRuleError, UpstreamError, type FieldError } from '@ledgerline/core/errors';

/** `pdf_options` of a template (spec §2.9); margins in millimetres. */
export interface PdfOptions {
  page_size?: string | null;
  orientation?: string | null;
  margin_top?: number | null;
  margin_bottom?: number | null;
  margin_left?: number | null;
  margin_right?: number | null;
  no_pdf_compression?: boolean | null;
  dpi?: number | null;
  disable_smart_shrinking?: boolean | null;
}

export interface PdfPrinterOptions {
  /** The Chromium binary; Debian's package installs /usr/bin/chromium. */
  executablePath: string;
  /** When there is no browser at `executablePath`: the one @sparticuz/chromium ships, or none. */
  fallback?: 'bundled' | 'none';
  /** PDFs printed at the same time (each holds a browser page). */
  concurrency: number;
  /** Longest time one print may take. */
  timeoutMs: number;
  log?: { warn: (msg: string, fields?: Record<string, unknown>) => void; info?: (msg: string, fields?: Record<string, unknown>) => void };
}

/** Which browser prints: the system's at the configured path, the bundled one, or none. */
export function chosenBrowser(o: Pick<PdfPrinterOptions, 'executablePath' | 'fallback'>): 'system' | 'bundled' | 'none' {
  if (existsSync(o.executablePath)) return 'system';
  return (o.fallback ?? 'bundled') === 'bundled' ? 'bundled' : 'none';
}

/**
 * The Chromium inside @sparticuz/chromium, unpacked to the temp folder once. Launched with our own
 * flags: its Lambda flags (`--single-process`) end the browser when the first page closes.
 */
async function bundledChromium(): Promise<string> {
  const { default: chromium } = await import('@sparticuz/chromium');
  return chromium.executablePath();
}

/** Chromium's flags for a headless, offline, throw-away browser. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

const PAGE_SIZES: Record<string, string> = {
  a3: 'A3', a4: 'A4', a5: 'A5', a6: 'A6', letter: 'Letter', legal: 'Legal', tabloid: 'Tabloid', ledger: 'Ledger',
};

/** Playwright's `page.pdf` options from a template's `pdf_options` (A4 portrait, 15/15/12/12 mm by default). */
/** Width and height in millimetres of each paper format (portrait). */
const PAGE_MM: Record<string, [number, number]> = {
  A3: [297, 420], A4: [210, 297], A5: [148, 210], A6: [105, 148], Letter: [216, 279], Legal: [216, 356], Tabloid: [279, 432], Ledger: [432, 279],
};
/** Least printable width and height left between the margins. */
const MIN_CONTENT_MM = 20;

export function pdfSettings(opts: PdfOptions | null | undefined) {
  const o = opts ?? {};
  const format = PAGE_SIZES[(o.page_size ?? 'A4').trim().toLowerCase()] ?? 'A4';
  const landscape = (o.orientation ?? '').toLowerCase() === 'landscape';
  const clamp = (v: number | null | undefined, d: number) => Math.max(0, Math.min(200, v ?? d));
  const m = { top: clamp(o.margin_top, 15), bottom: clamp(o.margin_bottom, 15), left: clamp(o.margin_left, 12), right: clamp(o.margin_right, 12) };
  // Chromium refuses a page whose margins leave no content area; that is the template's error (422), not a printer failure
  const [w, h] = landscape ? [PAGE_MM[format][1], PAGE_MM[format][0]] : PAGE_MM[format];
  const errors: FieldError[] = [];
  if (w - m.left - m.right < MIN_CONTENT_MM) errors.push({ path: 'pdf_options.margin_left', message: `left and right margins leave less than ${MIN_CONTENT_MM} mm of the ${w} mm page width`, code: 'pdf_options_invalid' });
  if (h - m.top - m.bottom < MIN_CONTENT_MM) errors.push({ path: 'pdf_options.margin_top', message: `top and bottom margins leave less than ${MIN_CONTENT_MM} mm of the ${h} mm page height`, code: 'pdf_options_invalid' });
  if (errors.length) throw new BusinessRuleError("The template's pdf_options leave no room to print on", 'pdf_options_invalid', errors);
  const mm = (v: number) => `${v}mm`;
  return {
    format,
    landscape,
    margin: { top: mm(m.top), bottom: mm(m.bottom), left: mm(m.left), right: mm(m.right) },
    printBackground: true,
    preferCSSPageSize: false,
  };
}

/** A counting semaphore: at most `n` holders at once, the rest wait in order. */
class Semaphore {
  private waiting: Array<() => void> = [];
  private held = 0;
  constructor(private readonly n: number) {}
  async acquire(): Promise<() => void> {
    if (this.held >= this.n) await new Promise<void>((r) => this.waiting.push(r));
    else this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    };
  }
}

/**
 * Prints HTML to PDF with one headless Chromium reused across requests, launched on first use
 * and relaunched if it dies. Each print gets its own browser context with JavaScript disabled and
 * every network request refused (a template cannot run scripts or reach the network; images
 * must be data: URLs). At most `concurrency` prints run at once.
 */
export class PdfPrinter {
  private browser: Promise<Browser> | null = null;
  private readonly gate: Semaphore;
  private closed = false;

  constructor(private readonly opts: PdfPrinterOptions) {
    this.gate = new Semaphore(Math.max(1, opts.concurrency));
    const chosen = chosenBrowser(opts);
    const log = opts.log;
    const say = (msg: string, fields: Record<string, unknown>) => (log?.info ? log.info(msg, fields) : log?.warn(msg, fields));
    if (chosen === 'system') say('PDFs print with the system Chromium', { path: opts.executablePath });
    else if (chosen === 'bundled') say('no Chromium at CHROMIUM_PATH; PDFs print with the Chromium bundled in @sparticuz/chromium', { path: opts.executablePath });
    else opts.log?.warn('no Chromium at CHROMIUM_PATH and CHROMIUM_FALLBACK=none: PDFs answer 503', { path: opts.executablePath });
  }

  /** Playwright gives every launch a fresh temporary profile (user-data-dir) and removes it on close. */
  private launch(): Promise<Browser> {
    if (this.browser) return this.browser;
    // Playwright is loaded on the first print, not at boot: it adds ~70 MB to a process that may never print.
    const p = (async () => {
      const chosen = chosenBrowser(this.opts);
      if (chosen === 'none') throw new Error(`no browser at ${this.opts.executablePath}`);
      const target =
        chosen === 'system' ? { executablePath: this.opts.executablePath, args: CHROMIUM_FLAGS } : { executablePath: await bundledChromium(), args: CHROMIUM_FLAGS };
      const { chromium } = await import('playwright-core');
      return chromium.launch({ ...target, headless: true, timeout: 30_000 });
    })()
      .then((browser) => {
        browser.on('disconnected', () => {
          if (this.browser === p) this.browser = null;
        });
        return browser;
      });
    this.browser = p;
    p.catch(() => {
      if (this.browser === p) this.browser = null;
    });
    return p;
  }

  async print(html: string, options?: PdfOptions | null): Promise<Buffer> {
    if (this.closed) throw new UpstreamError(503, 'pdf', 'the PDF printer is shut down');
    const settings = pdfSettings(options);
    const release = await this.gate.acquire();
    let context: BrowserContext | null = null;
    try {
      let browser: Browser;
      try {
        browser = await this.launch();
      } catch (e) {
        this.opts.log?.warn('chromium could not be started', { err: e instanceof Error ? e.message : String(e) });
        throw new UpstreamError(503, 'pdf', `no browser is available to print PDFs (${this.opts.executablePath})`);
      }
      context = await browser.newContext({ javaScriptEnabled: false, offline: true });
      await context.route('**/*', (route) => route.abort());
      const page = await context.newPage();
      page.setDefaultTimeout(this.opts.timeoutMs);
      await page.setContent(html, { waitUntil: 'load', timeout: this.opts.timeoutMs });
      await page.emulateMedia({ media: 'print' });
      return await page.pdf(settings);
    } catch (e) {
      if (e instanceof UpstreamError) throw e;
      this.opts.log?.warn('printing a PDF failed', { err: e instanceof Error ? e.message : String(e) });
      throw new UpstreamError(503, 'pdf', 'the PDF could not be printed; try again');
    } finally {
      await context?.close().catch(() => undefined);
      release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const b = this.browser;
    this.browser = null;
    if (!b) return;
    try {
      await (await b).close();
    } catch {
      // never started
    }
  }
}
