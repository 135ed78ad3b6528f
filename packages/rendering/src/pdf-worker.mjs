// The PDF printer's thread: it drives the one shared headless Chromium through Playwright, so the
// service's own thread never loads Playwright. Playwright tracks every call it makes in an
// AsyncLocalStorage, and on Node 20 the first use of one turns on async hooks for the rest of the
// thread's life: every promise the service made afterwards would pay for them (decision 128).
// Async hooks are per thread, so here they cost only the prints. Plain JavaScript because it
// starts without the TypeScript loader the service may run under (tsx, or Vite in the tests).
import { parentPort, workerData } from 'node:worker_threads';

/** `{ executablePath, bundled, flags }`: the browser `pdf.ts` chose, and its flags. */
const { executablePath, bundled, flags } = workerData;

let browser = null;

/** Launches the browser on first use and again after it died; a failed launch is tried again on the next print. */
function launch() {
  if (browser) return browser;
  const p = (async () => {
    const path = bundled ? await (await import('@sparticuz/chromium')).default.executablePath() : executablePath;
    const { chromium } = await import('playwright-core');
    const b = await chromium.launch({ executablePath: path, args: flags, headless: true, timeout: 30_000 });
    b.on('disconnected', () => {
      if (browser === p) browser = null;
    });
    return b;
  })();
  browser = p;
  p.catch(() => {
    if (browser === p) browser = null;
  });
  return p;
}

const messageOf = (e) => (e instanceof Error ? e.message : String(e));

async function print({ id, html, settings, timeoutMs }) {
  let b;
  try {
    b = await launch();
  } catch (e) {
    parentPort.postMessage({ id, error: { kind: 'no_browser', message: messageOf(e) } });
    return;
  }
  // each print in a context of its own: JavaScript off, every network request refused
  let context = null;
  try {
    context = await b.newContext({ javaScriptEnabled: false, offline: true });
    await context.route('**/*', (route) => route.abort());
    const page = await context.newPage();
    page.setDefaultTimeout(timeoutMs);
    await page.setContent(html, { waitUntil: 'load', timeout: timeoutMs });
    await page.emulateMedia({ media: 'print' });
    const pdf = await page.pdf(settings);
    // the bytes move to the service's thread, not copied
    const bytes = new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength);
    const owned = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength ? bytes : bytes.slice();
    parentPort.postMessage({ id, pdf: owned }, [owned.buffer]);
  } catch (e) {
    parentPort.postMessage({ id, error: { kind: 'print_failed', message: messageOf(e) } });
  } finally {
    await context?.close().catch(() => undefined);
  }
}

async function close() {
  const b = browser;
  browser = null;
  if (b) await (await b.catch(() => null))?.close().catch(() => undefined);
  // the service waits for this thread's exit
  parentPort.close();
}

parentPort.on('message', (message) => {
  if (message.close) void close();
  else void print(message);
});
