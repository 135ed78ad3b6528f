import type { Context } from 'hono';
import { ForbiddenError, INTERNAL_HEADERS, type KitEnv } from '@ledgerline/service-kit';

export { caller } from '@ledgerline/service-kit';

export function operatorOnly(c: Context<KitEnv>): void {
  if (c.req.header(INTERNAL_HEADERS.credentialType) !== 'operator') {
    throw new ForbiddenError('Only the operator token may create organisations', 'operator_only');
  }
}
