import { z } from 'zod';

/*
 * The operations only the gateway calls on settings, never routed publicly (`/internal/…`, the
 * internal token required): verifying an API key by its hash, whether an access token's client
 * still stands, and the public keys that verify access tokens. Declared here like the public
 * operations, so settings answers what the gateway parses and a change to either breaks the build.
 */

const notFound = z.object({ found: z.literal(false) });

export const apiKeyVerificationRequestSchema = z.object({ key_hash: z.string().regex(/^[0-9a-f]{64}$/) });
export const apiKeyVerificationSchema = z.discriminatedUnion('found', [
  notFound,
  z.object({
    found: z.literal(true),
    api_key_id: z.int().min(1),
    org_id: z.int().min(1),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'revoked', 'expired']),
    expires_at: z.string().nullable(),
  }),
]);

export const apiClientVerificationRequestSchema = z.object({ api_client_id: z.int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const apiClientVerificationSchema = z.discriminatedUnion('found', [
  notFound,
  z.object({ found: z.literal(true), api_client_id: z.int().min(1), org_id: z.int().min(1), status: z.enum(['active', 'revoked']) }),
]);

/** A JSON Web Key Set (RFC 7517) of Ed25519 public keys. */
export const jwkSetSchema = z.object({ keys: z.array(z.looseObject({ kty: z.string(), kid: z.string().optional() })) });

export const INTERNAL_ROUTES = {
  verifyApiKey: { method: 'POST', path: '/internal/credentials/api-key', body: apiKeyVerificationRequestSchema, response: apiKeyVerificationSchema },
  verifyApiClient: { method: 'POST', path: '/internal/credentials/api-client', body: apiClientVerificationRequestSchema, response: apiClientVerificationSchema },
  jwks: { method: 'GET', path: '/internal/jwks', response: jwkSetSchema },
} as const;

export type ApiKeyVerification = z.infer<typeof apiKeyVerificationSchema>;
export type ApiClientVerification = z.infer<typeof apiClientVerificationSchema>;
