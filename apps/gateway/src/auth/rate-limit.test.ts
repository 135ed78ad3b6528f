import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.js';
import { allowedMethods, routingOrder } from '../http/routing.js';
import { ROUTES } from '@ledgerline/contracts';

describe('token bucket per credential', () => {
  it('allows the burst, then refuses with a retry time, then refills at the sustained rate', () => {
    let now = 0;
    const rl = new RateLimiter(2, 3, () => now);
    expect([1, 2, 3].map(() => rl.take('k').allowed)).toEqual([true, true, true]);
    const refused = rl.take('k');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(rl.take('other').allowed).toBe(true); // buckets are per credential
    now = 500; // half a second at 2/s refills one token
    expect(rl.take('k').allowed).toBe(true);
    expect(rl.take('k').allowed).toBe(false);
    now = 10_000;
    expect(rl.take('k').headers['ratelimit-remaining']).toBe('2');
  });
});

describe('route table', () => {
  it('routes static segments before parameters', () => {
    const order = routingOrder(ROUTES).map((r) => `${r.method} ${r.path}`);
    expect(order.indexOf('GET /sales/credit-notes/check-no')).toBeLessThan(order.indexOf('GET /sales/credit-notes/:id'));
  });
  it('knows which methods a path offers', () => {
    expect(allowedMethods(ROUTES, '/v1/settings/security/api-keys/5').sort()).toEqual(['DELETE', 'GET', 'PUT']);
    expect(allowedMethods(ROUTES, '/v1/nothing')).toEqual([]);
  });
  it('covers all 26 endpoints of the interface', () => {
    const numbers = new Set(ROUTES.map((r) => r.specNo).filter(Boolean));
    expect(numbers.size).toBe(26);
  });
});
