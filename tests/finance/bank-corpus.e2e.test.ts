import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';
import { secondOrganisation } from './support.js';

/*
 * The bank statement corpus through the gateway (issue 53): every file of `tests/fixtures/bank`
 * imports into books in its statements' currency with every entry recorded and each statement
 * balanced, or is refused with the 4xx `expected.json` names, nothing stored. Hostile variants
 * (a 50 MB file, mixed encodings, the same file from ten clients at once) stay 4xx or one import.
 */

const DIR = path.resolve(import.meta.dirname, '../fixtures/bank');
type Expected = { statements: Array<{ account: string; currency: string; entries: number }> } | { refused: { status: number; code: string } };
const EXPECTED = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as Record<string, Expected>;
const COUNTRY: Record<string, string> = { CZK: 'CZ', EUR: 'SK', PLN: 'PL', HUF: 'HU', CHF: 'CH', TRY: 'TR' };

let stack: Stack;
const keys = new Map<string, string>();
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
  keys.set('CZK', stack.adminKey);
  for (const currency of ['EUR', 'PLN', 'HUF', 'CHF', 'TRY']) keys.set(currency, (await secondOrganisation(stack, `Books in ${currency}`, { country: COUNTRY[currency], currency })).key);
}, 90_000);
afterAll(async () => stack?.close());

const importFile = (body: Uint8Array | string, key: string) =>
  stack.api('/v1/finance/bank/statements', { method: 'POST', key, body, headers: { 'content-type': 'application/octet-stream' } });
const total = async (key: string, what: 'statements' | 'transactions') => (await (await stack.api(`/v1/finance/bank/${what}?take=0`, { key })).json()).total as number;
const cents = (xs: number[]) => xs.reduce((a, x) => a + Math.round(x * 100), 0);

describe('importing the bank statement corpus', () => {
  for (const [file, want] of Object.entries(EXPECTED)) {
    it(file, async () => {
      const bytes = new Uint8Array(readFileSync(path.join(DIR, file)));
      if ('refused' in want) {
        const key = stack.adminKey;
        const [statements, transactions] = [await total(key, 'statements'), await total(key, 'transactions')];
        const problem = await expectProblem(await importFile(bytes, key), want.refused.status, want.refused.code);
        // the problem says where: the statement, line or element
        expect(JSON.stringify(problem.errors ?? []) + problem.detail).toMatch(/statement|line|Stmt|Ntry/);
        expect([await total(key, 'statements'), await total(key, 'transactions')]).toEqual([statements, transactions]);
        return;
      }
      const key = keys.get(want.statements[0].currency)!;
      const res = await importFile(bytes, key);
      expect(res.status, await res.clone().text()).toBe(200);
      const answer = (await res.json()).statements as Array<{ account: string; currency: string; opening_balance: number; closing_balance: number; entries: Array<{ status: string; amount: number; transaction: { amount: number } | null }> }>;
      expect(answer.map((s) => ({ account: s.account, currency: s.currency, entries: s.entries.length }))).toEqual(want.statements);
      for (const s of answer) {
        // every entry that moves money is recorded (none is a duplicate of another in the corpus)
        const moved = s.entries.filter((e) => e.amount !== 0);
        expect(moved.every((e) => e.status !== 'duplicate' && e.transaction !== null)).toBe(true);
        expect(cents(moved.map((e) => e.transaction!.amount))).toBe(cents([s.closing_balance, -s.opening_balance]));
      }
    });
  }
});

describe('hostile statement files', () => {
  it('a 50 MB file is 413 before it is read', async () => {
    const big = new Uint8Array(50 * 1024 * 1024).fill(0x41);
    const res = await importFile(big, stack.adminKey);
    await expectProblem(res, 413, 'payload_too_large');
  });

  it('a file of mixed encodings is read or refused with a 4xx, never a 5xx', async () => {
    const utf8 = readFileSync(path.join(DIR, 'cz-fio-mt940.sta'));
    const cp1250 = readFileSync(path.join(DIR, 'cz-csob-mt940.sta'));
    // a windows-1250 statement, then a UTF-8 one without its BOM, and a stray 0xFF
    const mixed = new Uint8Array(Buffer.concat([cp1250, utf8.subarray(3)]));
    mixed[40] = 0xff;
    const res = await importFile(mixed, stack.adminKey);
    expect(res.status === 200 || (res.status >= 400 && res.status < 500), await res.clone().text()).toBe(true);
  });

  it('the same statement from ten clients at once is imported once: the others are 409', async () => {
    const file = readFileSync(path.join(DIR, 'cz-kb-mt940.sta'), 'utf8').replaceAll('115-1234560287', '115-9876543213').replaceAll('KB2611250000', 'KR2611250000');
    const before = await total(stack.adminKey, 'transactions');
    const answers = await Promise.all(Array.from({ length: 10 }, () => importFile(file, stack.adminKey)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(409)]);
    for (const r of answers.filter((x) => x.status === 409)) await expectProblem(r, 409);
    expect(await total(stack.adminKey, 'transactions')).toBe(before + 2);
  });
});
