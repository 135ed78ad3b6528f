import { ungrantableScopes } from '@ledgerline/contracts/scopes';
import { ForbiddenError, type AuthContext } from '@ledgerline/service-kit';

/**
 * 403 `scope_not_grantable` unless the caller holds every scope it hands out (or is admin).
 * `subject` says what is being granted, for the message ("a new API key", "API key 7").
 */
export function assertGrantable(auth: AuthContext, requested: readonly string[], subject: string, path = 'scopes'): void {
  const missing = ungrantableScopes(auth.scopes, requested);
  if (missing.length === 0) return;
  throw new ForbiddenError(
    `This credential cannot give ${subject} ${missing.join(', ')}: a credential grants only scopes it holds itself`,
    'scope_not_grantable',
    missing.map((s) => ({ path, message: `${s} is not held by this credential`, code: 'scope_not_grantable' })),
  );
}
