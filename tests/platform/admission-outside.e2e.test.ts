import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { startRegisterServer, type RegisterServer } from '../support/registers.js';

/*
 * Decision 248: a request waiting on a party outside the process (here ARES, which does not
 * answer) gives its place among the requests a service works on at once back. Settings works on
 * one request at a time in this stack; three lookups hang on the register meanwhile, and a read of
 * the organisation is still answered at once — not queued behind them and refused.
 */

let stack: Stack;
let registers: RegisterServer;
beforeAll(async () => {
  registers = await startRegisterServer();
  stack = await startStack({ services: [], env: { ...registers.env, REGISTER_TIMEOUT_MS: '1500', MAX_CONCURRENT_REQUESTS: '1', REQUEST_QUEUE_MAX_WAIT_MS: '500' } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await registers?.close();
});

describe('the admission gate and waits outside the process', () => {
  it('answers a read at once while the only slot’s holders wait on a register that does not answer', async () => {
    registers.mode.ares = 'slow';
    const started = performance.now();
    const lookups = ['26835746', '00006947', '27074358'].map(async (regNo) => {
      const res = await stack.api(`/v1/contacts/lookup?reg_no=${regNo}`);
      return { status: res.status, code: ((await res.json()) as { code?: string }).code, at: performance.now() - started };
    });
    // the lookups are with the register (which takes them and says nothing) before the read comes
    await new Promise((r) => setTimeout(r, 400));
    const read = await stack.api('/v1/settings/organisation');
    const readAt = performance.now() - started;
    expect(read.status).toBe(200);
    const answered = await Promise.all(lookups);
    // the register's timeout ends each lookup (504, named), after the read was answered
    expect(answered.map((a) => [a.status, a.code])).toEqual([0, 1, 2].map(() => [504, 'register_timeout']));
    expect(readAt).toBeLessThan(Math.min(...answered.map((a) => a.at)));
    // back from the register, each took its slot again and finished: the service takes requests as before
    registers.mode.ares = 'ok';
    expect((await stack.api('/v1/contacts/lookup?reg_no=26835746')).status).toBe(200);
  }, 30_000);
});
