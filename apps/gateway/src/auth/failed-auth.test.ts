import { describe, expect, it } from 'vitest';
import { FailedAuthGuard } from './failed-auth.js';

const refused = (f: () => unknown) => {
  try {
    f();
    return false;
  } catch (e) {
    return (e as { status?: number }).status === 429;
  }
};

describe('failed authentication per address and per key prefix (issue 52)', () => {
  it("another address's failures under a victim's prefix never refuse the victim's address", () => {
    let now = 0;
    const guard = new FailedAuthGuard(10, 3, () => now);
    // the attacker fails under the victim's prefix until refused
    const attempts = Array.from({ length: 6 }, () => {
      if (refused(() => guard.check('203.0.113.7', 'ak_victim00'))) return 429;
      const settle = guard.reserve('203.0.113.7', 'ak_victim00');
      settle(false);
      return 401;
    });
    expect(attempts).toEqual([401, 401, 401, 429, 429, 429]);
    // the victim, elsewhere: its lookups go ahead while the prefix's bucket is empty
    expect(refused(() => guard.check('198.51.100.20', 'ak_victim00'))).toBe(false);
    const settle = guard.reserve('198.51.100.20', 'ak_victim00');
    settle(true);
    expect(refused(() => guard.reserve('198.51.100.20', 'ak_victim00'))).toBe(false);
    // a third address that fails once under the prefix is refused with it from then on
    guard.reserve('192.0.2.9', 'ak_victim00')(false);
    expect(refused(() => guard.check('192.0.2.9', 'ak_victim00'))).toBe(true);
    // it may still try other prefixes until its own address bucket is empty
    expect(refused(() => guard.check('192.0.2.9', 'ak_other000'))).toBe(false);
    // a minute later every bucket has refilled
    now = 60_000;
    expect(refused(() => guard.check('203.0.113.7', 'ak_victim00'))).toBe(false);
  });

  it('failures without a lookup (a malformed credential) count for the address and the prefix alike', () => {
    const guard = new FailedAuthGuard(10, 2, () => 0);
    guard.record('192.0.2.1', 'ak_x0000000');
    guard.record('192.0.2.1', 'ak_x0000000');
    expect(refused(() => guard.check('192.0.2.1', null))).toBe(true);
    expect(refused(() => guard.check('192.0.2.2', 'ak_x0000000'))).toBe(false);
  });
});
