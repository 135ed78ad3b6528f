import { SUBJECTS, apiKeyRevokedEventSchema, settingsApiClientRevokedEventSchema } from '@ledgerline/contracts/events';
import { ROUTES, type RouteSpec, type ServiceName } from '@ledgerline/contracts/routes';
import { hasScope, requiredScope } from '@ledgerline/contracts/scopes';
// The kit by module, not by its index: the index re-exports the database layer (MikroORM, knex,
// pg), which the gateway never uses and whose code would only lengthen its full collections.
import { AppError, ForbiddenError, RateLimitedError, UnauthorizedError, UpstreamError } from '@ledgerline/service-kit/errors';
import { ConfigError, loadConfig, uploadLimitOf } from '@ledgerline/service-kit/config';
import { createLogger } from '@ledgerline/service-kit/logger';
import { MetricsRegistry } from '@ledgerline/service-kit/metrics';
import { createHttpApp, problemResponse, requestBody } from '@ledgerline/service-kit/http/app';
import { listen } from '@ledgerline/service-kit/http/listen';
import type { AuthContext } from '@ledgerline/service-kit/http/context';
import { EventBus } from '@ledgerline/service-kit/events/bus';
import { parseEnvelope } from '@ledgerline/service-kit/events/envelope';
import { gatewayConfigSchema, type GatewayConfig } from './config.js';
import { CredentialVerifier, type CredentialInspection } from './auth/credentials.js';
import { RateLimiter } from './auth/rate-limit.js';
import { FailedAuthGuard, presentedKeyPrefix } from './auth/failed-auth.js';
import { ClientAddressResolver } from './auth/client-address.js';
import { forward, incomingHeaders, pathAndQuery } from './proxy/upstream.js';
import { UpstreamSet } from './proxy/upstream-set.js';
import { allowedMethods, routingOrder } from './http/routing.js';
import { docsRoutes } from './http/docs.js';

/** A service is available when one of its replicas says it is ready (its database and NATS answer) within a second. */
async function upstreamHealthy(upstream: UpstreamSet): Promise<boolean> {
  const answers = await Promise.all(
    upstream.replicas.map(async (r) => {
      try {
        const res = await r.pool.request({ origin: r.origin, path: '/readyz', method: 'GET', headersTimeout: 1000, bodyTimeout: 1000 });
        await res.body.dump();
        return res.statusCode === 200;
      } catch {
        return false;
      }
    }),
  );
  return answers.some(Boolean);
}

export interface RunningGateway {
  url: string;
  port: number;
  config: GatewayConfig;
  verifier: CredentialVerifier;
  close: () => Promise<void>;
}

/**
 * The public edge: authenticates every `/v1` call, checks its scope and rate, and forwards it
 * to the owning service by the route table in the contracts package.
 */
export async function startGateway(env: Record<string, string | undefined> = process.env): Promise<RunningGateway> {
  const config = loadConfig(gatewayConfigSchema, env);
  const log = createLogger('gateway', config.LOG_LEVEL);
  const metrics = new MetricsRegistry('ledgerline');
  // as many connections to a replica as requests the gateway lets it have in flight at most (decisions 243, 251)
  const upstream = (service: ServiceName, urls: string[]) => new UpstreamSet(service, urls, undefined, config.MAX_INFLIGHT_PER_SERVICE, { waitMs: config.UPSTREAM_QUEUE_WAIT_MS, limit: config.UPSTREAM_QUEUE_LIMIT });
  const upstreams: Record<ServiceName, UpstreamSet> = {
    sales: upstream('sales', config.SALES_URL),
    purchase: upstream('purchase', config.PURCHASE_URL),
    finance: upstream('finance', config.FINANCE_URL),
    accounting: upstream('accounting', config.ACCOUNTING_URL),
    settings: upstream('settings', config.SETTINGS_URL),
  };
  const verifier = new CredentialVerifier(upstreams.settings, config.CREDENTIAL_CACHE_TTL_MS, config.OPERATOR_TOKEN, config.INTERNAL_TOKEN, config.CREDENTIAL_CACHE_STALE_MS);
  const limiter = new RateLimiter(config.RATE_LIMIT_PER_SECOND, config.RATE_LIMIT_BURST);
  const failures = new FailedAuthGuard(config.AUTH_FAILURES_PER_MINUTE, config.AUTH_FAILURE_BURST);
  let addresses: ClientAddressResolver;
  try {
    addresses = new ClientAddressResolver(config.TRUSTED_PROXIES);
  } catch (e) {
    throw new ConfigError(`Invalid configuration:\n  ${(e as Error).message}`);
  }

  const bus = await EventBus.connect(config, 'ledgerline-gateway', log);
  const revocations = bus.nc.subscribe(bus.subject(`${SUBJECTS.settingsApiKeyRevoked}.*`), {
    callback: (err, msg) => {
      if (err) return;
      try {
        const data = apiKeyRevokedEventSchema.parse(parseEnvelope(msg.data).data);
        verifier.forget(data.key_hash);
      } catch (e) {
        log.warn('ignored a malformed revocation event', { err: String(e) });
      }
    },
  });
  const clientRevocations = bus.nc.subscribe(bus.subject(`${SUBJECTS.settingsApiClientRevoked}.*`), {
    callback: (err, msg) => {
      if (err) return;
      try {
        verifier.forgetClient(settingsApiClientRevokedEventSchema.parse(parseEnvelope(msg.data).data).api_client_id);
      } catch (e) {
        log.warn('ignored a malformed client revocation event', { err: String(e) });
      }
    },
  });

  const app = createHttpApp({
    service: 'gateway',
    logger: log,
    metrics,
    bodyLimit: config.BODY_LIMIT_BYTES,
    proxy: true,
    trustInternalHeaders: false,
    accessLogSample: config.ACCESS_LOG_SAMPLE,
    failureLinesPerSecond: config.FAILURE_LOG_PER_SECOND,
    // Ready: it hears revocations (NATS, its own connection). Every service behind it, settings
    // too (decision 267), is a dependency: one down takes out what needs it (503 with
    // Retry-After) and is reported (`degraded`), not made the gateway's. Settings down, the
    // credentials verified before keep working from the cache (decision 263) and only one not
    // verified, or past its stale window, is 503; out of rotation — every replica at once, since
    // settings is shared by all — the gateway could answer neither those nor the routes that
    // still work.
    readiness: {
      nats: () => bus.isConnected(),
    },
    dependencies: Object.fromEntries((Object.keys(upstreams) as ServiceName[]).map((name) => [name, () => upstreamHealthy(upstreams[name])])),
  });
  // the document names a server only when PUBLIC_URL says where the API is public; else it is relative
  app.route('/', docsRoutes(config.PUBLIC_URL));

  const authorise = async (route: RouteSpec, header: string | undefined, inspection: CredentialInspection | undefined): Promise<AuthContext | undefined> => {
    if (route.open) return undefined;
    if (route.operationId === 'createOrganisation') {
      const token = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
      if (token && verifier.isOperator(token)) {
        return { orgId: 0, scopes: ['operator'], credentialId: 'operator', credentialType: 'operator' };
      }
      throw new UnauthorizedError('Only the operator token may create organisations', 'operator_token_required');
    }
    const auth = await verifier.verify(header, inspection);
    const needed = requiredScope(route.scope, route.method);
    if (!hasScope(auth.scopes, needed)) {
      throw new ForbiddenError(`This credential lacks the ${needed} scope`, 'insufficient_scope');
    }
    return auth;
  };

  for (const route of routingOrder(ROUTES)) {
    // an upload route takes a file as large as ATTACHMENT_MAX_BYTES; the service checks the file itself
    const bodyLimit = route.consumes?.includes('multipart/form-data') ? uploadLimitOf(config) : config.BODY_LIMIT_BYTES;
    app.on(route.method, `/v1${route.path}`, async (c) => {
      const declared = Number(c.req.header('content-length') ?? '0');
      if (declared > bodyLimit) {
        return problemResponse(c, new AppError(413, 'payload_too_large', 'Payload too large', `The request body exceeds ${bodyLimit} bytes`));
      }
      const address = addresses.resolve(c);
      const authorization = c.req.header('authorization');
      const keyPrefix = route.open ? null : presentedKeyPrefix(authorization);
      const inspection = route.open ? undefined : verifier.inspect(authorization);
      const state = inspection?.state ?? 'other';
      // a key already verified and cached is no guess: it passes even from an address that failed often
      if (state !== 'known') failures.check(address, keyPrefix);
      const settle = state === 'lookup' ? failures.reserve(address, keyPrefix) : undefined;
      let auth: AuthContext | undefined;
      try {
        auth = await authorise(route, authorization, inspection);
        c.set('auth', auth);
        settle?.(true);
      } catch (e) {
        if (!(e instanceof UnauthorizedError)) settle?.(true);
        else if (settle) settle(false);
        else failures.record(address, keyPrefix);
        throw e;
      }
      const bucket = auth ? auth.credentialId : `ip:${address}`;
      const decision = limiter.take(bucket);
      if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds, decision.headers);
      // every replica at its limit: in line for a short while (decision 259), then refused before
      // the body is read (decision 243)
      const target = upstreams[route.service];
      const roomDeadline = performance.now() + target.roomQueue.waitMs;
      // room at once (the usual case) costs no await
      const room = target.waitForRoom(roomDeadline);
      if (room !== true && !(await room)) throw target.overloaded();
      const body = await requestBody(c, bodyLimit);
      const res = await forward(c.req.method, incomingHeaders(c), pathAndQuery(c.req.url), target, {
        timeoutMs: config.UPSTREAM_TIMEOUT_MS,
        internalToken: config.INTERNAL_TOKEN,
        requestId: c.get('requestId'),
        traceparent: c.get('traceparent'),
        auth: auth?.credentialType === 'operator' ? undefined : auth,
        operator: auth?.credentialType === 'operator',
        forwardAuthorization: route.open === true,
        body,
        // the rate headers go out with the service's answer
        answerHeaders: decision.headers,
        roomDeadline,
      });
      // the token endpoint authenticates clients itself: its refusals count as failures too
      if (route.open && res.status === 401) failures.record(address, null);
      return res;
    });
  }

  app.all('/v1/*', (c) => {
    const allowed = allowedMethods(ROUTES, c.req.path);
    if (allowed.length === 0) {
      return problemResponse(c, new AppError(404, 'route_not_found', 'Not found', `No operation at ${c.req.path}`));
    }
    return problemResponse(
      c,
      new AppError(405, 'method_not_allowed', 'Method not allowed', `${c.req.method} is not offered here; use ${allowed.join(', ')}`, undefined, {
        Allow: allowed.join(', '),
      }),
    );
  });

  // a client that sends its request slowly holds a connection only this long (408 after)
  const { server, port, url } = await listen(app.fetch, config, metrics);
  log.info('gateway listening', { url, docs: `${url}/docs` });
  return {
    url,
    port,
    config,
    verifier,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      revocations.unsubscribe();
      clientRevocations.unsubscribe();
      await bus.close();
      await Promise.all(Object.values(upstreams).map((u) => u.close()));
    },
  };
}
