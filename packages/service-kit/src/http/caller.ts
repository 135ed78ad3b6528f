import type { Context } from 'hono';
import { UnauthorizedError } from '../errors.js';
import type { AuthContext, KitEnv } from './context.js';

/** The caller the gateway verified; a tenant route never runs without one. */
export function caller(c: Context<KitEnv>): AuthContext {
  const auth = c.get('auth');
  if (!auth) throw new UnauthorizedError();
  return auth;
}
