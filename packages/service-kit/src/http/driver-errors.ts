import { ConflictError, UpstreamError, type AppError } from '../errors.js';
import { isUniqueViolation } from '../db/tables.js';
import { connectionLoss } from '../db/connection-loss.js';

/**
 * Database errors a handler did not anticipate still must not leak SQL: a unique violation is a
 * conflict, a serialization failure asks the client to retry, and so does a lost database
 * connection (a commit whose answer was lost never gets here: the unit of work and the commit
 * groups answer it as `commit_outcome_unknown`). Anything else is a 500.
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
  return null;
}
