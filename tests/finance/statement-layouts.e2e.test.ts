import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';

/*
 * MT940 layouts the parser used to refuse (issue 78), through the gateway; the corpus files
 * (tests/fixtures/bank: nl-knab, nl-rabobank-legacy, de-sparkasse-nocurrency, tr-longzeros,
 * at-continued) are imported by bank-corpus.e2e.test.ts. Here: a statement in Deutsche Mark, a
 * currency the euro replaced, in the layout of a German savings bank (shape from the public sample
 * WoLpH/mt940 `mt940_tests/self-provided/raphaelm.sta`: balances without their currency, `:NS:`
 * fields, funds code `M`): refused until its rate is given, saying how; then imported at it.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance'] });
}, 60_000);
afterAll(async () => stack?.close());

const DEM_STATEMENT = [
  ':20:STARTUMS',
  ':25:76050101/1222333444',
  ':28:1/1',
  ':NS:22Test GmbH',
  '23Testkonto',
  ':60F:C010315DEM1000,00',
  ':61:0103170320CM5000,00S05168790452',
  ':NS:01Verwendungszweck 1',
  '15Empfaenger',
  ':61:010320DM250,50NCHG',
  ':62F:C0103205749,50',
  '',
].join('\r\n');

const importFile = (body: string) => stack.api('/v1/finance/bank/statements', { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
const count = async () => (await ok(await stack.api('/v1/finance/bank/transactions?take=0'))).total;

describe('MT940 layouts (issue 78)', () => {
  it('a statement in a currency the euro replaced: 422 saying how to give its rate, nothing stored; with the rate set by hand it imports', async () => {
    const problem = await expectProblem(await importFile(DEM_STATEMENT), 422, 'fx_rate_required');
    expect(problem.detail).toContain('DEM was replaced by the euro (1 EUR = 1.95583 DEM from 1999-01-01)');
    expect(problem.detail).toContain('PUT /v1/settings/exchange-rates/DEM/2001-03-20');
    expect(problem.errors).toEqual([{ path: 'statement 1/1', code: 'fx_rate_required', message: 'no DEM rate on or before 2001-03-20' }]);
    expect(await count()).toBe(0);
    expect((await ok(await stack.api('/v1/finance/bank/statements'))).total).toBe(0);

    // the euro was CZK 35.73 that day: a Mark is 35.73 / 1.95583 = 18.27
    ok(await stack.api('/v1/settings/exchange-rates/DEM/2001-03-01', { method: 'PUT', json: { rate: 18.27 } }));
    // an invented or active-less code stays refused
    await expectProblem(await stack.api('/v1/settings/exchange-rates/XYZ/2001-03-01', { method: 'PUT', json: { rate: 1 } }), 400);

    const imported = await ok(await importFile(DEM_STATEMENT));
    const [statement] = imported.statements;
    expect(statement).toMatchObject({ account: '76050101/1222333444', currency: 'DEM', opening_balance: 1000, closing_balance: 5749.5 });
    expect(statement.entries.map((e: any) => [e.amount, e.status, e.transaction.currency, e.transaction.amount_leg, e.transaction.fx_rate])).toEqual([
      [5000, 'unmatched', 'DEM', 91350, 18.27],
      [-250.5, 'fee', 'DEM', -4576.64, 18.27],
    ]);
    expect(await count()).toBe(2);
  });
});
