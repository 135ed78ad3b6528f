import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { startStack, type Stack } from '../support/stack.js';

/*
 * A query parameter that takes one value, given twice, is 400 naming it (issue 71: the last value
 * won silently, so a report could answer a period the client did not mean); one that takes a list
 * (`sort`) takes every value.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

describe('repeated query parameters', () => {
  it.each([
    ['/v1/reporting/tax/vat-return?date_from=2026-10-01&date_from=2026-09-01&date_to=2026-10-31', 'date_from'],
    ['/v1/audit-events?service=sales&service=purchase', 'service'],
    ['/v1/settings/exchange-rates?date=2026-10-01&currency=EUR&currency=USD', 'currency'],
    ['/v1/sales/invoices?take=1&take=1000', 'take'],
    ['/v1/accounting/transactions?date_posting=[2026-10-01;2026-10-31]&date_posting=2026-11-01', 'date_posting'],
  ])('%s is 400 naming %s', async (url, name) => {
    const problem = await expectProblem(await stack.api(url), 400, 'validation_error');
    expect(problem.errors).toEqual([expect.objectContaining({ path: name, code: 'repeated_parameter' })]);
  });

  it('a parameter that takes a list takes each value, and one given once is read as before', async () => {
    expect((await ok(await stack.api('/v1/sales/invoices?sort=-date_issued&sort=id&take=1'))).take).toBe(1);
    expect((await ok(await stack.api('/v1/reporting/tax/vat-return?date_from=2026-10-01&date_to=2026-10-31'))).date_from).toBe('2026-10-01');
  });
});
