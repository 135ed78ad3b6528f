import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { PdfPrinter } from '@ledgerline/rendering';

/*
 * The one shared Chromium may die (killed, crashed, out of memory). The printer notices and starts
 * a new one: at most the print that was running fails with a 503 asking to try again.
 */
const printer = new PdfPrinter({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', concurrency: 1, timeoutMs: 15_000 });
afterAll(async () => {
  await printer.close();
});

/** Browser processes started by this test process. */
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
        return /chrom/i.test(execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }));
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
});
