import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startStack, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';
import { camt053File, gpcFile, mt940File, type FixtureMovement, type FixtureStatement } from '../../apps/finance/src/domain/statements/statement-files.fixtures.js';

/*
 * Issue 52, point 1 and the statement parts of point 7, through the gateway: banks reuse and blank
 * their entry references, so no entry of a balanced statement is ever dropped as a "duplicate" of
 * another entry of the same statement; an entry is a duplicate only when account, reference,
 * amount and booking day match one recorded from another statement; what cannot be told is 422
 * and changes nothing. An account is one account however the bank spells it; numbers and accounts
 * too long are refused, never cut; a statement list asked for a period that starts after it ends is 400.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

let accounts = 0;
/** A fresh account of our own for each scenario (a valid-looking Czech IBAN shape). */
const newAccount = () => `CZ65080000001920${String(++accounts).padStart(8, '0')}`;

const importFile = (body: string, contentType = 'application/octet-stream') =>
  stack.api('/v1/finance/bank/statements', { method: 'POST', body, headers: { 'content-type': contentType } });
async function imported(body: string) {
  const res = await importFile(body);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).statements as Array<{ id: number; entries: Array<{ status: string; amount: number; transaction: { id: number; amount: number } | null }> }>;
}
const transactionsOf = async (account: string) => {
  // the list has no account filter: every transaction of the organisation, kept to the account's
  const page = await (await stack.api('/v1/finance/bank/transactions?take=1000')).json();
  return (page.entities as Array<{ id: number; account_number: string; amount: number; bank_reference: string | null }>).filter((t) => t.account_number === account);
};
const cents = (xs: number[]) => xs.reduce((a, x) => a + Math.round(x * 100), 0);

const statement = (account: string, number: string, opening: string, movements: FixtureMovement[], day = '2026-11-20'): FixtureStatement => {
  const closing = (cents([Number(opening), ...movements.map((m) => Number(m.amount))]) / 100).toFixed(2);
  return { account, number, opening, closing, from: day, to: day, movements };
};

describe('statement entries sharing a bank reference (issue 52)', () => {
  it('CAMT: entries 10.00 and 5 000.00 under one AcctSvcrRef are both recorded', async () => {
    const account = newAccount();
    const [s] = await imported(camt053File([statement(account, '1', '100.00', [{ amount: '10.00', reference: 'SHARED-1' }, { amount: '5000.00', reference: 'SHARED-1' }])]));
    expect(s.entries.map((e) => [e.status, e.amount])).toEqual([
      ['unmatched', 10],
      ['unmatched', 5000],
    ]);
    const recorded = await transactionsOf(account);
    expect(recorded.map((t) => t.amount).sort((a, b) => a - b)).toEqual([10, 5000]);
    expect(recorded.every((t) => t.bank_reference === 'SHARED-1')).toBe(true);
  });

  it('GPC: reference 0000000000000 is no reference; 100 and 250 are both recorded', async () => {
    const account = '19-2000145399/0800';
    const [s] = await imported(gpcFile(statement(account, '7', '0.00', [{ amount: '100.00', reference: '0000000000000' }, { amount: '250.00', reference: '0000000000000' }])));
    expect(s.entries.map((e) => [e.status, e.amount])).toEqual([
      ['unmatched', 100],
      ['unmatched', 250],
    ]);
    const recorded = await transactionsOf('19-2000145399');
    expect(recorded.map((t) => [t.amount, t.bank_reference])).toEqual([
      [100, null],
      [250, null],
    ]);
  });

  it('two equal entries of one statement are both kept; an overlapping statement repeating them records nothing; repeating more is 422 and changes nothing', async () => {
    const account = newAccount();
    const pair: FixtureMovement[] = [
      { amount: '100.00', reference: 'BATCH-9' },
      { amount: '100.00', reference: 'BATCH-9' },
    ];
    const [first] = await imported(mt940File([statement(account, '20', '0.00', pair)]));
    expect(first.entries.map((e) => e.status)).toEqual(['unmatched', 'unmatched']);
    const ids = first.entries.map((e) => e.transaction!.id);
    expect(new Set(ids).size).toBe(2);

    // a later statement of the same account repeats both (same day, reference and amount) and adds one
    const [second] = await imported(mt940File([statement(account, '21', '200.00', [...pair, { amount: '-30.00', reference: 'OUT-1' }])]));
    expect(second.entries.map((e) => [e.status, e.transaction?.id ?? null])).toEqual([
      ['duplicate', ids[0]],
      ['duplicate', ids[1]],
      ['unmatched', expect.any(Number)],
    ]);
    // one of the same entries again (another day's statement re-sent): a duplicate
    const [third] = await imported(camt053File([statement(account, '22', '170.00', [pair[0]])]));
    expect(third.entries.map((e) => [e.status, e.transaction?.id])).toEqual([['duplicate', ids[0]]]);
    expect((await transactionsOf(account)).length).toBe(3);

    // three such entries where two were recorded: which one is new cannot be told
    const before = (await (await stack.api('/v1/finance/bank/transactions?take=0')).json()).total;
    const statementsBefore = (await (await stack.api('/v1/finance/bank/statements?take=0')).json()).total;
    const refused = await importFile(mt940File([statement(account, '23', '170.00', [...pair, pair[0], { amount: '1.00', reference: 'NEW-1' }])]));
    const problem = await expectProblem(refused, 422, 'statement_entries_ambiguous');
    expect(problem.errors!.map((e) => e.path)).toEqual(['statement 23/1 entry 1', 'statement 23/1 entry 2', 'statement 23/1 entry 3']);
    expect((await (await stack.api('/v1/finance/bank/transactions?take=0')).json()).total).toBe(before);
    expect((await (await stack.api('/v1/finance/bank/statements?take=0')).json()).total).toBe(statementsBefore);
  });

  it('the same reference with another amount or booking day is another entry', async () => {
    const account = newAccount();
    await imported(camt053File([statement(account, '1', '0.00', [{ amount: '10.00', reference: 'R-1' }])]));
    const [next] = await imported(camt053File([statement(account, '2', '10.00', [{ amount: '10.00', reference: 'R-1', date: '2026-11-21' }, { amount: '-10.00', reference: 'R-1' }, { amount: '10.01', reference: 'R-1' }], '2026-11-21')]));
    expect(next.entries.map((e) => e.status)).toEqual(['unmatched', 'unmatched', 'unmatched']);
    expect((await transactionsOf(account)).length).toBe(4);
  });

  it('two overlapping statements imported at once record the shared entry once', async () => {
    const account = newAccount();
    const shared: FixtureMovement = { amount: '42.00', reference: 'RACE-1' };
    const answers = await Promise.all([
      importFile(camt053File([statement(account, '31', '0.00', [shared])])),
      importFile(mt940File([statement(account, '32', '0.00', [shared, { amount: '1.00', reference: 'RACE-2' }])])),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const statuses = (await Promise.all(answers.map((r) => r.json()))).map((b) => b.statements[0].entries[0].status);
    expect(statuses.sort()).toEqual(['duplicate', 'unmatched']);
    expect((await transactionsOf(account)).filter((t) => t.bank_reference === 'RACE-1')).toHaveLength(1);
  });

  it('a bank transaction recorded one by one with the same reference is a duplicate only with the same amount and day', async () => {
    const account = newAccount();
    const body = { account_number: account, bank_reference: 'ONE-1', amount: 50, currency: 'CZK', date_transaction: '2026-11-20' };
    expect((await stack.api('/v1/finance/bank/transactions', { method: 'POST', json: body })).status).toBe(200);
    await expectProblem(await stack.api('/v1/finance/bank/transactions', { method: 'POST', json: body }), 409, 'duplicate_bank_transaction');
    expect((await stack.api('/v1/finance/bank/transactions', { method: 'POST', json: { ...body, amount: 60 } })).status).toBe(200);
    expect((await stack.api('/v1/finance/bank/transactions', { method: 'POST', json: { ...body, date_transaction: '2026-11-21' } })).status).toBe(200);
    // and a statement bringing that entry sees it recorded
    const [s] = await imported(camt053File([statement(account, '1', '0.00', [{ amount: '50.00', reference: 'ONE-1' }])]));
    expect(s.entries[0].status).toBe('duplicate');
  });

  it('property: any balanced statement, in any format, imports with Σ recorded entries = closing − opening', async () => {
    const movement = fc.record({
      amount: fc.integer({ min: -500_000, max: 500_000 }).map((c) => (c / 100).toFixed(2)),
      reference: fc.constantFrom(undefined, 'SAME', 'SAME', '0000000000000', 'NOTPROVIDED', 'OTHER'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(movement, { minLength: 1, maxLength: 8 }), fc.constantFrom('camt053', 'gpc', 'mt940'), async (moves, format) => {
        const account = format === 'gpc' ? `${1000 + ++accounts}-2000145399/0800` : newAccount();
        // GPC references are 13 characters; the placeholder only means "none" in camt and MT940
        const movements = moves.map((m, i) => ({ amount: m.amount, reference: m.reference === undefined ? `U${i}` : format === 'gpc' ? m.reference.slice(0, 13) : m.reference }));
        const s = statement(account, '1', '1000.00', movements);
        const file = format === 'camt053' ? camt053File([s]) : format === 'gpc' ? gpcFile(s) : mt940File([s]);
        const [answer] = await imported(file);
        const moved = answer.entries.filter((e) => e.status !== 'skipped');
        expect(moved.every((e) => e.status !== 'duplicate')).toBe(true);
        expect(cents(moved.map((e) => e.transaction!.amount))).toBe(cents([Number(s.closing), -Number(s.opening)]));
        expect(new Set(moved.map((e) => e.transaction!.id)).size).toBe(moved.length);
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});

describe('accounts and statement numbers as the bank spells them (issue 52, point 7)', () => {
  it('an IBAN with an invisible character is the same account: the statement is not imported twice', async () => {
    const account = newAccount();
    const s = statement(account, '5', '0.00', [{ amount: '1.00', reference: 'Z-1' }]);
    await imported(camt053File([s]));
    const hidden = `${account.slice(0, 6)}\u200B${account.slice(6, 10)} ${account.slice(10)}`;
    await expectProblem(await importFile(camt053File([{ ...s, account: hidden }])), 409, 'statement_already_imported');
    // the list finds it under either spelling
    const listed = await (await stack.api(`/v1/finance/bank/statements?account=${encodeURIComponent(hidden)}`)).json();
    expect(listed.entities.map((x: { account: string }) => x.account)).toEqual([account]);
  });

  it('a statement number or account longer than 64 characters is 400, not cut; nothing is stored', async () => {
    const before = (await (await stack.api('/v1/finance/bank/statements?take=0')).json()).total;
    const long = `${'9'.repeat(64)}1`;
    const number = await expectProblem(await importFile(camt053File([statement(newAccount(), long, '0.00', [{ amount: '1.00' }])])), 400, 'invalid_statement');
    expect(number.detail).toMatch(/statement number is 65 characters long/);
    const account = await expectProblem(await importFile(mt940File([statement(`CZ${'1'.repeat(63)}`, '1', '0.00', [{ amount: '1.00' }])])), 400, 'invalid_statement');
    expect(account.detail).toMatch(/account is 65 characters long/);
    expect((await (await stack.api('/v1/finance/bank/statements?take=0')).json()).total).toBe(before);
  });

  it('the statement list filters by period start and end; a start after the end is 400', async () => {
    const account = newAccount();
    await imported(camt053File([{ ...statement(account, '8', '0.00', [{ amount: '3.00' }]), from: '2026-10-01', to: '2026-10-31' }]));
    const q = (qs: string) => stack.api(`/v1/finance/bank/statements?account=${account}&${qs}`);
    expect((await (await q('date_from=[2026-10-01;]&date_to=[;2026-10-31]')).json()).total).toBe(1);
    expect((await (await q('date_from=2026-10-02')).json()).total).toBe(0);
    const problem = await expectProblem(await q('date_from=[2026-12-01;]&date_to=[;2026-11-01]'), 400, 'validation_error');
    expect(problem.errors![0]).toMatchObject({ path: 'date_from', code: 'invalid_range' });
    await expectProblem(await q('date_to=[2026-12-01;2026-11-01]'), 400);
  });
});
