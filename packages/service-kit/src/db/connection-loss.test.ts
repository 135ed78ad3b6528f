import { describe, expect, it } from 'vitest';
import { connectionLoss, databaseRefusesNow, markDatabaseError } from './connection-loss.js';

/** An error as the driver (`pg`) or the server makes it: a message, maybe a SQLSTATE or errno code. */
const err = (message: string, code?: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), code ? { code } : {}, extra);

describe('what a lost database connection says about the statement', () => {
  it('unsent: the driver refused before sending, or no connection could be made', () => {
    expect(connectionLoss(err('Client has encountered a connection error and is not queryable'))).toBe('unsent');
    // the query builder prefixes the statement it ran
    expect(connectionLoss(err('COMMIT; - Client has encountered a connection error and is not queryable'))).toBe('unsent');
    expect(connectionLoss(err('Client was closed and is not queryable'))).toBe('unsent');
    expect(connectionLoss(err('Knex: Timeout acquiring a connection. The pool is probably full.', undefined, { name: 'KnexTimeoutError' }))).toBe('unsent');
    expect(connectionLoss(markDatabaseError(err('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')))).toBe('unsent');
    expect(connectionLoss(markDatabaseError(err('getaddrinfo ENOTFOUND db', 'ENOTFOUND')))).toBe('unsent');
    expect(connectionLoss(err('the database system is starting up', '57P03'))).toBe('unsent');
    expect(connectionLoss(err('Connection terminated due to connection timeout'))).toBe('unsent');
    // the server ended a session idle inside a transaction: rolled back before this statement
    expect(connectionLoss(err('terminating connection due to idle-in-transaction timeout', '25P03'))).toBe('unsent');
  });

  it('lost: the connection went while the server had the statement', () => {
    expect(connectionLoss(err('Connection terminated unexpectedly'))).toBe('lost');
    expect(connectionLoss(err('COMMIT; - Connection terminated unexpectedly'))).toBe('lost');
    expect(connectionLoss(err('terminating connection due to administrator command', '57P01'))).toBe('lost');
    expect(connectionLoss(err('terminating connection because of crash of another server process', '57P02'))).toBe('lost');
    expect(connectionLoss(markDatabaseError(err('read ECONNRESET', 'ECONNRESET')))).toBe('lost');
    expect(connectionLoss(markDatabaseError(err('write EPIPE', 'EPIPE')))).toBe('lost');
    expect(connectionLoss(err('connection failure', '08006'))).toBe('lost');
  });

  it('looks through the errors the ORM wraps around the driver’s', () => {
    expect(connectionLoss(err('flush failed', undefined, { cause: err('Connection terminated unexpectedly') }))).toBe('lost');
    expect(connectionLoss(err('outer', undefined, { cause: err('middle', undefined, { cause: err('x', '57P03') }) }))).toBe('unsent');
  });

  it("the server's refusals and everything else are not losses", () => {
    expect(connectionLoss(err('duplicate key value violates unique constraint', '23505'))).toBeNull();
    expect(connectionLoss(err('could not serialize access', '40001'))).toBeNull();
    expect(connectionLoss(err('canceling statement due to statement timeout', '57014'))).toBeNull();
    expect(connectionLoss(err('relation "x" does not exist', '42P01'))).toBeNull();
    expect(connectionLoss(new Error('something else'))).toBeNull();
    // a socket error of an HTTP or SMTP call is not the database's
    expect(connectionLoss(err('connect ECONNREFUSED 127.0.0.1:25', 'ECONNREFUSED'))).toBeNull();
    expect(connectionLoss(err('fetch failed', undefined, { cause: err('read ECONNRESET', 'ECONNRESET') }))).toBeNull();
    expect(connectionLoss(err('not a SQLSTATE', '08'))).toBeNull();
    expect(connectionLoss(null)).toBeNull();
    expect(connectionLoss(undefined)).toBeNull();
    expect(connectionLoss('a string')).toBeNull();
    // a cause chain that loops ends
    const a: Record<string, unknown> = { message: 'a' };
    a.cause = a;
    expect(connectionLoss(a)).toBeNull();
  });
});

describe('a database that answered but cannot take the work now', () => {
  it('out of resources (class 53) or accepting no writes (25006), looked for through wrapping errors', () => {
    expect(databaseRefusesNow(err('could not extend file: No space left on device', '53100'))).toBe('out_of_resources');
    expect(databaseRefusesNow(err('out of memory', '53200'))).toBe('out_of_resources');
    expect(databaseRefusesNow(err('sorry, too many clients already', '53300'))).toBe('out_of_resources');
    expect(databaseRefusesNow(err('cannot execute INSERT in a read-only transaction', '25006'))).toBe('read_only');
    expect(databaseRefusesNow(err('flush failed', undefined, { cause: err('x', '25006') }))).toBe('read_only');
  });
  it('everything else is not', () => {
    expect(databaseRefusesNow(err('canceling statement due to statement timeout', '57014'))).toBeNull();
    expect(databaseRefusesNow(err('duplicate key', '23505'))).toBeNull();
    expect(databaseRefusesNow(err('terminating connection due to administrator command', '57P01'))).toBeNull();
    expect(databaseRefusesNow(err('not a SQLSTATE', '53'))).toBeNull();
    expect(databaseRefusesNow(undefined)).toBeNull();
  });
});
