import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { BusinessRuleError, UpstreamError, type FieldError } from '@ledgerline/core/errors';

/** `pdf_options` of a template; margins in millimetres. */
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

interface PrintAnswer {
  id: number;
  pdf?: Uint8Array;
  error?: { kind: 'no_browser' | 'print_failed'; message: string };
}

/** The worker thread that holds the browser (`pdf-worker.mjs`), and the prints waiting for its answers. */
interface PrintThread {
  worker: Worker;
  waiting: Map<number, { resolve: (a: PrintAnswer) => void; reject: (e: Error) => void }>;
}

const WORKER_URL = new URL('./pdf-worker.mjs', import.meta.url);

/**
 * Prints HTML to PDF with one headless Chromium reused across requests, launched on first use
 * and relaunched if it dies. Each print gets its own browser context with JavaScript disabled and
 * every network request refused (a template cannot run scripts or reach the network; images
 * must be data: URLs). At most `concurrency` prints run at once.
 *
 * Playwright runs in a worker thread of its own (`pdf-worker.mjs`, started on the first print):
 * its call tracking would otherwise turn on Node's async hooks in the service's thread for good
 * (decision 128), and the browser's answers (a PDF arrives as base64 text) are decoded off the
 * thread that answers requests.
 */
export class PdfPrinter {
  private thread: PrintThread | null = null;
  private readonly gate: Semaphore;
  private closed = false;
  private nextId = 1;

  constructor(private readonly opts: PdfPrinterOptions) {
    this.gate = new Semaphore(Math.max(1, opts.concurrency));
    const chosen = chosenBrowser(opts);
    const log = opts.log;
    const say = (msg: string, fields: Record<string, unknown>) => (log?.info ? log.info(msg, fields) : log?.warn(msg, fields));
    if (chosen === 'system') say('PDFs print with the system Chromium', { path: opts.executablePath });
    else if (chosen === 'bundled') say('no Chromium at CHROMIUM_PATH; PDFs print with the Chromium bundled in @sparticuz/chromium', { path: opts.executablePath });
    else opts.log?.warn('no Chromium at CHROMIUM_PATH and CHROMIUM_FALLBACK=none: PDFs answer 503', { path: opts.executablePath });
  }

  /** The print thread, started on first use and again after it ended; Playwright gives every browser launch a fresh temporary profile. */
  private printThread(): PrintThread {
    if (this.thread) return this.thread;
    const chosen = chosenBrowser(this.opts);
    const worker = new Worker(WORKER_URL, {
      workerData: { executablePath: this.opts.executablePath, bundled: chosen === 'bundled', flags: CHROMIUM_FLAGS },
      // plain JavaScript: no TypeScript loader, no profiler or heap flags of the service
      execArgv: [],
    });
    // the thread keeps the process alive only while a print waits for it (`ask`)
    worker.unref();
    const thread: PrintThread = { worker, waiting: new Map() };
    const fail = (err: Error) => {
      if (this.thread === thread) this.thread = null;
      const waiters = [...thread.waiting.values()];
      thread.waiting.clear();
      for (const w of waiters) w.reject(err);
    };
    worker.on('message', (answer: PrintAnswer) => {
      const waiter = thread.waiting.get(answer.id);
      thread.waiting.delete(answer.id);
      waiter?.resolve(answer);
    });
    worker.on('error', (err) => {
      this.opts.log?.warn('the PDF print thread failed', { err: err.message });
      fail(err);
    });
    worker.on('exit', () => fail(new Error('the PDF print thread ended')));
    this.thread = thread;
    return thread;
  }

  private ask(html: string, settings: ReturnType<typeof pdfSettings>): Promise<PrintAnswer> {
    const thread = this.printThread();
    const id = this.nextId++;
    return new Promise<PrintAnswer>((resolve, reject) => {
      // a thread that stopped answering (hung, not dead) is retired, so the next print starts afresh
      const guard = setTimeout(() => {
        if (!thread.waiting.delete(id)) return;
        reject(new Error('the PDF print thread did not answer in time'));
        void this.retire(thread);
      }, this.opts.timeoutMs * 2 + 30_000);
      guard.unref?.();
      const settled = () => {
        clearTimeout(guard);
        if (thread.waiting.size === 0) thread.worker.unref();
      };
      thread.waiting.set(id, {
        resolve: (a) => {
          resolve(a);
          settled();
        },
        reject: (e) => {
          reject(e);
          settled();
        },
      });
      thread.worker.ref();
      thread.worker.postMessage({ id, html, settings, timeoutMs: this.opts.timeoutMs });
    });
  }

  async print(html: string, options?: PdfOptions | null): Promise<Buffer> {
    if (this.closed) throw new UpstreamError(503, 'pdf', 'the PDF printer is shut down');
    const settings = pdfSettings(options);
    if (chosenBrowser(this.opts) === 'none') throw new UpstreamError(503, 'pdf', `no browser is available to print PDFs (${this.opts.executablePath})`);
    const release = await this.gate.acquire();
    try {
      const answer: Omit<PrintAnswer, 'id'> = await this.ask(html, settings).catch((e: Error) => ({ error: { kind: 'print_failed' as const, message: e.message } }));
      if (answer.pdf) return Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength);
      const error = answer.error ?? { kind: 'print_failed', message: 'no answer' };
      if (error.kind === 'no_browser') {
        this.opts.log?.warn('chromium could not be started', { err: error.message });
        throw new UpstreamError(503, 'pdf', `no browser is available to print PDFs (${this.opts.executablePath})`);
      }
      this.opts.log?.warn('printing a PDF failed', { err: error.message });
      throw new UpstreamError(503, 'pdf', 'the PDF could not be printed; try again');
    } finally {
      release();
    }
  }

  /**
   * Ends a print thread: asked first to close its browser, so Chromium is shut down and reaped by
   * the thread that started it; ended by force only if it does not within a few seconds. (A thread
   * ended by force still kills its Chromium on the way out, but nothing is left to reap it, so it
   * stays a zombie entry until the service exits.)
   */
  private async retire(thread: PrintThread): Promise<void> {
    if (this.thread === thread) this.thread = null;
    const ended = new Promise<void>((resolve) => thread.worker.once('exit', () => resolve()));
    thread.worker.postMessage({ close: true });
    const timer = setTimeout(() => void thread.worker.terminate(), 10_000);
    await ended;
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.thread) await this.retire(this.thread);
  }
}
