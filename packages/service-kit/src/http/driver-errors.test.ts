import { describe, expect, it } from 'vitest';
import { mapDriverError } from './driver-errors.js';

const dbError = (message: string, code: string) => Object.assign(new Error(message), { code, severity: 'ERROR' });

describe('database errors a handler did not anticipate', () => {
  it('a unique violation is 409 duplicate; a serialization failure or deadlock 409 concurrent_update', () => {
    expect(mapDriverError(dbError('duplicate key value violates unique constraint "x"', '23505'))).toMatchObject({ status: 409, code: 'duplicate' });
    expect(mapDriverError(dbError('could not serialize access due to concurrent update', '40001'))).toMatchObject({ status: 409, code: 'concurrent_update' });
    expect(mapDriverError(dbError('deadlock detected', '40P01'))).toMatchObject({ status: 409, code: 'concurrent_update' });
  });

  it('a database that cannot take the request now is 503 service_unavailable, saying nothing was written', () => {
    for (const [message, code, why] of [
      ['could not extend file: No space left on device', '53100', /out of resources/],
      ['out of memory', '53200', /out of resources/],
      ['sorry, too many clients already', '53300', /out of resources/],
      ['cannot execute INSERT in a read-only transaction', '25006', /read-only/],
      ['canceling statement due to statement timeout', '57014', /canceled/],
      ['terminating connection due to administrator command', '57P01', /connection to the database was lost/],
    ] as const) {
      const mapped = mapDriverError(dbError(message, code));
      expect(mapped, code).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(mapped!.message, code).toMatch(why);
      expect(mapped!.message, code).toMatch(/nothing was written, retry/);
      expect(mapped!.headers, code).toMatchObject({ 'Retry-After': '1' });
      // the server's text (table names, values) is not passed on
      expect(mapped!.message, code).not.toContain(message);
    }
  });

  it('anything else stays unmapped (a 500 that is logged)', () => {
    expect(mapDriverError(dbError('relation "x" does not exist', '42P01'))).toBeNull();
    expect(mapDriverError(dbError('could not read block', '58030'))).toBeNull();
    expect(mapDriverError(new Error('a bug'))).toBeNull();
  });
});
