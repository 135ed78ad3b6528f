import { z } from 'zod';
import { baseConfigSchema } from '@ledgerline/service-kit/config';
import { upstreamUrls } from './proxy/upstream-set.js';

/** One URL, or the comma-separated URLs of a service's replicas (`http://a:8081,http://b:8081`). */
const upstreamList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v) => upstreamUrls(v))
    .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1, 'at least one URL'));

export const gatewayConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  SALES_URL: upstreamList('http://127.0.0.1:8081'),
  PURCHASE_URL: upstreamList('http://127.0.0.1:8082'),
  FINANCE_URL: upstreamList('http://127.0.0.1:8083'),
  ACCOUNTING_URL: upstreamList('http://127.0.0.1:8084'),
  SETTINGS_URL: upstreamList('http://127.0.0.1:8085'),
  /** Enables POST /v1/admin/organisations for whoever holds it; disabled when unset. */
  OPERATOR_TOKEN: z.string().min(24, 'at least 24 characters').optional(),
  /** Token bucket per credential: sustained requests per second and burst size. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(100),
  RATE_LIMIT_BURST: z.coerce.number().int().positive().default(200),
  /**
   * Failed authentications allowed per client address and per key prefix: a burst, refilled at
   * AUTH_FAILURES_PER_MINUTE. Beyond it, 429 with Retry-After and no lookup.
   */
  AUTH_FAILURE_BURST: z.coerce.number().int().positive().default(20),
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().positive().default(10),
  /** Proxies whose X-Forwarded-For is believed: comma-separated IPs and CIDR blocks; none by default. */
  TRUSTED_PROXIES: z.string().default(''),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /**
   * Requests one service may have in flight through this gateway (running and queued). Beyond it
   * the gateway answers 503 at once instead of queueing without bound until memory runs out.
   */
  MAX_INFLIGHT_PER_SERVICE: z.coerce.number().int().positive().default(512),
  /**
   * How long a request finding a service's replicas all at their limit (lowered by the service's
   * overload refusals, decision 243) waits in line for room before the gateway refuses it, and how
   * many wait at most per service (decision 259). 0: refused at once.
   */
  UPSTREAM_QUEUE_WAIT_MS: z.coerce.number().int().min(0).max(10_000).default(100),
  UPSTREAM_QUEUE_LIMIT: z.coerce.number().int().min(0).max(100_000).default(1024),
  /** How long a verified API key is trusted without asking settings again (revocation events cut it short). */
  CREDENTIAL_CACHE_TTL_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * How long past CREDENTIAL_CACHE_TTL_MS a credential settings last let in still does, while
   * settings is asked again in the background (stale-while-revalidate); what bounds a settings
   * outage's reach into the rest of the API. 0: every expired answer is looked up first.
   */
  CREDENTIAL_CACHE_STALE_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
  PUBLIC_URL: z.string().url().optional(),
  /** Share of requests written to the access log, 0–1: every request by default at the gateway. */
  ACCESS_LOG_SAMPLE: z.coerce.number().min(0).max(1).default(1),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
