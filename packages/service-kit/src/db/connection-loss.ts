/**
 * How a lost database connection shows in an error, and what it says about the statement that
 * failed:
 * - `unsent`: the statement never reached the server (the driver knew the connection was gone,
 *   or no connection could be made), so nothing of it happened;
 * - `lost`: the connection went while the statement was with the server. Inside a transaction
 *   that is still nothing (the server rolls back what a vanished session left open), but for a
 *   COMMIT, or a statement that commits on its own, the server may have committed before its
 *   answer was lost: the outcome is unknown.
 * null for every other error, the server's refusals included (they are answers, not losses).
 */
export type ConnectionLoss = 'unsent' | 'lost';

/** SQLSTATEs of a server that is ending sessions (admin or crash shutdown) or not yet accepting them. */
const ENDING_SESSION = new Set(['57P01', '57P02']);
const NOT_ACCEPTING = new Set(['57P03', '08001', '08004']);
/** The server ended the session for idling inside a transaction (`idle_in_transaction_session_timeout`): it was rolled back before the statement that reads this. */
const IDLED_OUT = '25P03';
/** Socket errors before a connection existed (only those `markDatabaseError` marked count). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * Marks an error as the database connection's: a socket error (`ECONNRESET`, `ECONNREFUSED`, …)
 * says nothing of where it came from, and one from an HTTP or SMTP call must not read as a lost
 * database. Every pooled connection marks the socket error it fails with, and `sqlRows` what a
 * connection could not be made for (`initOrm`).
 */
export function markDatabaseError<E>(err: E): E {
  if (err && typeof err === 'object' && typeof (err as { code?: unknown }).code === 'string') (err as { fromDatabase?: boolean }).fromDatabase = true;
  return err;
}

interface ErrorLayer {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  fromDatabase?: unknown;
}

/** The error and the ones it wraps (the ORM and the query builder wrap the driver's), a few layers deep. */
function* layers(err: unknown): Generator<ErrorLayer> {
  let e = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    yield e as ErrorLayer;
    e = (e as ErrorLayer).cause;
  }
}

export function connectionLoss(err: unknown): ConnectionLoss | null {
  for (const e of layers(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    const socket = e.fromDatabase === true;
    const message = typeof e.message === 'string' ? e.message : '';
    // the driver refuses a statement on a connection it already saw fail, before sending it
    if (message.includes('is not queryable') || message.includes('Cannot use a pool after calling end')) return 'unsent';
    // the query builder's pool could not lend a connection in time (none could be made)
    if (e.name === 'KnexTimeoutError' || message.startsWith('Knex: Timeout acquiring a connection')) return 'unsent';
    if (NOT_ACCEPTING.has(code) || code === IDLED_OUT || (socket && NOT_CONNECTED.has(code))) return 'unsent';
    if (ENDING_SESSION.has(code) || (socket && DROPPED.has(code)) || /^08[0-9A-Z]{3}$/.test(code)) return 'lost';
    if (message.includes('connection timeout')) return 'unsent';
    if (message.includes('Connection terminated')) return 'lost';
  }
  return null;
}

/**
 * A database that answered but cannot take the work now, by SQLSTATE: out of resources (disk,
 * memory, connections: class 53) or accepting no writes (a standby not yet promoted after a
 * failover: 25006). Not the request's or the event's fault, and the statement was rolled back.
 */
export function databaseRefusesNow(err: unknown): 'out_of_resources' | 'read_only' | null {
  for (const e of layers(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (/^53[0-9A-Z]{3}$/.test(code)) return 'out_of_resources';
    if (code === '25006') return 'read_only';
  }
  return null;
}
