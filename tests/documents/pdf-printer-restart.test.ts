import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { PdfPrinter } from '@ledgerline/rendering';

/*
 * The one shared Chromium may die (killed, crashed, out of memory), and so may the worker thread
 * that drives it. The printer notices and starts a new one: at most the prints that were running
 * fail with a 503 asking to try again.
 */
const printer = new PdfPrinter({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', concurrency: 1, timeoutMs: 15_000 });
afterAll(async () => {
  await printer.close();
});

/** Browser processes started by this test process, zombies (killed, not yet reaped) left out. */
function chromiumChildren(): number[] {
  let out = '';
  try {
    out = execFileSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
  return out
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        const [state, comm] = execFileSync('ps', ['-o', 'stat=,comm=', '-p', String(pid)], { encoding: 'utf8' }).trim().split(/\s+/);
        return /chrom/i.test(comm) && !state.startsWith('Z');
      } catch {
        return false;
      }
    });
}

describe('PDF printer', () => {
  it('prints again after its browser was killed', async () => {
    const first = await printer.print('<h1>one</h1>');
    expect(first.subarray(0, 5).toString()).toBe('%PDF-');
    const browsers = chromiumChildren();
    expect(browsers.length).toBeGreaterThan(0);
    for (const pid of browsers) process.kill(pid, 'SIGKILL');

    // the print that races the death may be refused (503, try again); one of the next ones prints
    let printed: Buffer | null = null;
    for (let attempt = 0; attempt < 5 && !printed; attempt++) {
      printed = await printer.print('<h1>two</h1>').catch((e: { status?: number }) => {
        expect(e.status).toBe(503);
        return null;
      });
      if (!printed) await new Promise((r) => setTimeout(r, 200));
    }
    expect(printed?.subarray(0, 5).toString()).toBe('%PDF-');
    const relaunched = chromiumChildren();
    expect(relaunched.length).toBeGreaterThan(0);
    expect(relaunched.some((pid) => browsers.includes(pid))).toBe(false);
  }, 60_000);

  it('prints again after its print thread was ended mid-print, leaving no browser of it running', async () => {
    const before = await printer.print('<h1>three</h1>');
    expect(before.subarray(0, 5).toString()).toBe('%PDF-');
    const browsers = chromiumChildren();
    expect(browsers.length).toBeGreaterThan(0);

    // a print long enough to be under way when the thread ends (the request has been posted to it)
    const long = `<table>${'<tr><td>line</td><td>1 000,00</td></tr>'.repeat(20_000)}</table>`;
    const running = printer.print(long).then(
      () => 'printed',
      (e: { status?: number; code?: string; message?: string }) => ({ status: e.status, code: e.code, message: e.message }),
    );
    await new Promise((r) => setImmediate(r));
    const thread = (printer as unknown as { thread: { worker: { terminate(): Promise<number> } } | null }).thread;
    expect(thread).not.toBeNull();
    await thread!.worker.terminate();
    expect(await running).toEqual({ status: 503, code: 'service_unavailable', message: 'pdf: the PDF could not be printed; try again' });

    // the next print starts a new thread and a new browser; the old thread's browser is gone
    const after = await printer.print('<h1>four</h1>');
    expect(after.subarray(0, 5).toString()).toBe('%PDF-');
    const now = chromiumChildren();
    expect(now.length).toBeGreaterThan(0);
    expect(now.some((pid) => browsers.includes(pid))).toBe(false);
  }, 60_000);
});
