import Decimal from 'decimal.js';
import { expect } from 'vitest';
import { splitTenantSubject, type CloudEvent, type StreamName } from '@ledgerline/contracts';
import type { ApiResponse, ServiceKey, Stack } from './stack.js';

/** A problem+json answer with the given status (and code), in the platform's problem shape. */
export async function expectProblem(res: Response | ApiResponse, status: number, code?: string) {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const body: any = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code: code ?? body.code });
  expect(body).toMatchObject({ status, type: expect.stringMatching(/^\/problems\//), title: expect.any(String), detail: expect.any(String) });
  return body as { code: string; detail: string; errors?: Array<{ path: string; code: string; message: string }> };
}

/** A 200 answer's JSON body; any other answer fails the test with its body in the message. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function expectOk(res: Response | ApiResponse): Promise<any> {
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

/**
 * Sends a request again, as an integration honouring Retry-After does, while the service sheds it
 * (503 before any work, decision 243): a burst wider than the service's concurrency may be partly
 * refused on a loaded machine, and what a test asserts is what the retried burst comes to — every
 * refusal having changed nothing. At most `tries` sends; the last answer is returned whatever it is.
 */
export async function untilAdmitted<R extends Response | ApiResponse>(send: () => Promise<R>, tries = 20): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    const retryAfter = Number(res.headers.get('retry-after'));
    if (res.status !== 503 || !(retryAfter > 0) || attempt >= tries) return res;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, Math.min(retryAfter, 5) * 1000));
  }
}

/**
 * Every event of `subject` (catalogue name, unprefixed) stored in `stream`, read by sequence
 * through a running service's connection (nats-server 2.9 has no multi-subject consumers).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function readEvents(stack: Stack, via: ServiceKey, stream: StreamName, subject: string): Promise<CloudEvent<any>[]> {
  const bus = stack.services[via]!.deps.bus;
  const name = bus.streamName(stream);
  const info = await bus.jsm.streams.info(name);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const out: CloudEvent<any>[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(name, { seq }).catch(() => null);
    if (m && splitTenantSubject(bus.unprefixed(m.subject))?.subject === subject) out.push(JSON.parse(Buffer.from(m.data).toString('utf8')));
  }
  return out;
}

/** `stack.api` bound to a stack created later (in beforeAll). */
export function apiOf(stack: () => Stack) {
  return (path: string, init?: Parameters<Stack['api']>[1]): Promise<ApiResponse> => stack().api(path, init);
}

export type JsonResponse = ApiResponse;

/** Each account's debit − credit over the days of `range` (`[from;to]`), from the trial balance, to the cent. */
export async function accountBalances(stack: Stack, range: string, key?: string): Promise<Record<string, string>> {
  const tb = await expectOk(await stack.api(`/v1/reporting/financial/trial-balance/1/export/json?date_posting=${range}`, { method: 'POST', json: [], key }));
  return Object.fromEntries(tb.rows.map((r: { gl_account: { number: string }; debit: number; credit: number }) => [r.gl_account.number, new Decimal(r.debit).minus(r.credit).toFixed(2)]));
}
