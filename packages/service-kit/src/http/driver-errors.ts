import { ConflictError, UpstreamError, type AppError } from '../errors.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { connectionLoss, databaseRefusesNow } from '../db/connection-loss.js';

const REFUSING = { out_of_resources: 'the database is out of resources (disk, memory or connections)', read_only: 'the database accepts no writes at the moment (read-only)' };

/**
 * Database errors a handler did not anticipate still must not leak SQL: a unique violation is a
 * conflict, a serialization failure asks the client to retry, and so do a lost database
 * connection and a database that cannot take the request now (a commit whose answer was lost
 * never gets here: the unit of work and the commit groups answer it as `commit_outcome_unknown`).
 * Anything else is a 500.
 */
export function mapDriverError(err: unknown): AppError | null {
  const e = err as { code?: string; name?: string };
  if (isUniqueViolation(err)) {
    return new ConflictError('A record with the same unique value already exists', 'duplicate');
  }
  if (e?.code === '40001' || e?.code === '40P01') {
    return new ConflictError('The request conflicted with a concurrent one; retry it', 'concurrent_update');
  }
  if (connectionLoss(err)) {
    return new UpstreamError(503, 'database', 'the connection to the database was lost before anything was committed; nothing was written, retry');
  }
  const refusing = databaseRefusesNow(err);
  // canceled by an operator or a statement timeout
  const why = refusing ? REFUSING[refusing] : e?.code === '57014' ? 'the database canceled the statement' : null;
  if (why) return new UpstreamError(503, 'database', `${why}; nothing was written, retry`);
  return null;
}
