import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.js';

/** What the gateway verified about the caller, passed to services in internal headers. */
export interface AuthContext {
  orgId: number;
  scopes: string[];
  credentialId: string;
  credentialType: 'api_key' | 'access_token' | 'operator';
}

export const INTERNAL_HEADERS = {
  orgId: 'x-ledgerline-org-id',
  scopes: 'x-ledgerline-scopes',
  credentialId: 'x-ledgerline-credential-id',
  credentialType: 'x-ledgerline-credential-type',
  token: 'x-ledgerline-internal-token',
} as const;

export type KitEnv = {
  Variables: {
    requestId: string;
    log: Logger;
    auth: AuthContext | undefined;
    /** Parsed JSON body of a write request (undefined when the body was empty). */
    body: unknown;
    /** Request-scoped entity manager; inside one transaction for write methods. */
    em: EntityManager;
  };
};
