import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { ROUTES, routingOrder, type RouteSpec, type ServiceName, type ServiceRoute } from '@ledgerline/contracts';
import { operationContext, type OperationContext } from '../context.js';
import { prepareEvent, recordPreparedEvent } from '../events/outbox.js';
import type { EventBus } from '../events/bus.js';
import { requestReply } from '../events/rpc.js';
import { caller } from './caller.js';
import { INTERNAL_HEADERS, type AuthContext, type KitEnv } from './context.js';
import { ForbiddenError } from '../errors.js';
import { respond } from './app.js';
import type { JsonText } from '../db/tables.js';
import { readQuery, refuseQuery } from './query.js';
import { parseOrThrow, parseRequest } from './validation.js';

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a request carries, parsed by the schemas its operation declares. */
export interface EndpointInput<R extends RouteSpec> {
  params: Parsed<R['pathParams']>;
  query: Parsed<R['query']>;
  /**
   * The body parsed by the declared schema, on first read: a handler that must answer 404 for an
   * unknown id before judging the body reads it after the lookup.
   */
  readonly body: Parsed<R['body']>;
  /** The JSON body as sent (undefined when there was none). */
  raw: unknown;
}

/** The caller: absent only on operations that take no tenant credential (token endpoint, operator). */
type Untenanted = { open: true } | { operatorOnly: true };
type CallerOf<R extends RouteSpec> = R extends Untenanted ? undefined : AuthContext;

/**
 * Per-request context of an endpoint: the operation context every domain function takes (the
 * caller's organisation, the request's transaction, emit, clock, logger), plus the Hono context
 * and the caller's credential.
 */
export type EndpointContext<R extends RouteSpec = RouteSpec> = OperationContext & {
  c: Context<KitEnv>;
  auth: CallerOf<R>;
  orgId: R extends Untenanted ? number | null : number;
};

/**
 * The answer the operation declares (checked by the compiler), or a ready Response (HTML, PDF,
 * CSV), or the declared answer already serialised (`JsonText`: the compiler no longer checks it,
 * so a handler answers one only with text made from a checked object, as a posted document's view).
 */
export type EndpointAnswer<R extends RouteSpec> = (R['response'] extends z.ZodType ? z.input<R['response']> : never) | Response | JsonText;

export type EndpointHandler<R extends RouteSpec> = (args: { ctx: EndpointContext<R>; input: EndpointInput<R> }) => Promise<EndpointAnswer<R>>;

const DEFERS_TRANSACTION = Symbol('defersTransaction');

/**
 * Marks a write handler that only reads until it moves its writes into a commit group
 * (`ctx.inCommitGroup`) or begins its own transaction (`ctx.inOwnTransaction`): its request then
 * starts without a transaction, so its reads run as single statements and no BEGIN and ROLLBACK
 * are spent on a transaction that would only have read. A handler so marked must write nothing
 * through `ctx.em` before it does one or the other.
 */
export function defersTransaction<H extends (...args: never[]) => unknown>(handler: H): H {
  return Object.assign(handler, { [DEFERS_TRANSACTION]: true });
}

/** One handler for every operation the contracts declare for a service: no more, no fewer. */
export type EndpointHandlers<S extends ServiceName> = { [R in ServiceRoute<S> as R['operationId']]: EndpointHandler<R> };

/**
 * A handler's input: the body is validated when the handler first reads it.
 *
 * A class, not an object literal with a `get body()` closure per request: with such a literal,
 * V8 kept each request's whole graph (Hono context, entity manager, headers) alive through
 * young-generation collections until a full one (measured with `--trace-gc-nvp`, decision 127).
 * A GET's garbage was 20 % promoted, and the old generation filled within a second: a 20–30 ms
 * full collection, the settings GET's p99 at a fixed rate.
 */
export class RequestInput {
  readonly params: unknown;
  readonly query: unknown;
  readonly raw: unknown;
  readonly #route: RouteSpec;
  #parsed: { value: unknown } | undefined;

  constructor(route: RouteSpec, params: unknown, query: unknown, raw: unknown) {
    this.#route = route;
    this.params = params;
    this.query = query;
    this.raw = raw;
  }

  get body(): unknown {
    const route = this.#route;
    if (!route.body) return undefined;
    this.#parsed ??= { value: parseRequest(route.body, this.raw === undefined && !route.bodyRequired ? {} : this.raw, 'request body', route.response) };
    return this.#parsed.value;
  }
}

/**
 * A request's handler context: the operation context of its caller, with the Hono context and the
 * verified caller added.
 *
 * Extended in place, not spread into a new literal with `c` and `auth` added: V8 kept each such
 * copy, and through it the whole request, alive through two young-generation collections (a
 * settings GET's garbage 1.2 % promoted against 0.03 %; decision 129).
 */
export function endpointContext(c: Context<KitEnv>, route: RouteSpec, auth: AuthContext | undefined, service: ServiceName, bus: EventBus) {
  return Object.assign(
    operationContext({
      orgId: auth?.orgId ?? null,
      actor: auth ? auth.credentialId : route.operatorOnly ? 'operator' : 'anonymous',
      requestId: c.get('requestId'),
      traceparent: c.get('traceparent') ?? null,
      em: c.get('em'),
      log: c.get('log'),
      emit: async (em, ev) => {
        const prepared = prepareEvent(service, ev);
        if (c.get('emitAtCommit')?.(em, prepared)) return prepared.id;
        return recordPreparedEvent(em, prepared);
      },
      prepareEvent: (ev, dataJson) => prepareEvent(service, ev, dataJson),
      ask: (subject, orgId, data) => requestReply(bus, subject, orgId, data),
      awayFromGate: c.get('awayFromGate'),
      commitGroup: c.get('commitGroup'),
      beginOwn: c.get('beginOwn'),
      writeLast: c.get('writeLast'),
    }),
    { c, auth },
  );
}

/**
 * Serves a service's operations from their declarations in the contracts (the same table the
 * gateway routes by and OpenAPI is generated from): path, method, parameter, query and body
 * schemas, repeatable query keys and success status come from there; the handler gets the parsed
 * input and returns the declared answer. A declared operation without a handler, or a handler
 * for an undeclared one, is refused at start.
 */
export function serveEndpoints<S extends ServiceName>(app: Hono<KitEnv>, service: S, handlers: EndpointHandlers<S>, bus: EventBus): void {
  const own = ROUTES.filter((r) => r.service === service);
  const table = handlers as unknown as Record<string, EndpointHandler<RouteSpec>>;
  const extra = Object.keys(table).filter((id) => !own.some((r) => r.operationId === id));
  if (extra.length) throw new Error(`${service}: handlers for undeclared operations: ${extra.join(', ')}`);
  for (const route of routingOrder(own)) {
    const handler = table[route.operationId];
    if (!handler) throw new Error(`${service}: no handler for the declared operation ${route.operationId}`);
    app.on(route.method, `/v1${route.path}`, async (c) => {
      if (route.operatorOnly && c.req.header(INTERNAL_HEADERS.credentialType) !== 'operator') {
        throw new ForbiddenError('Only the operator token may use this operation', 'operator_only');
      }
      const auth = route.open || route.operatorOnly ? c.get('auth') : caller(c);
      const params = route.pathParams ? parseOrThrow(route.pathParams, c.req.param(), 'path') : undefined;
      const query = route.query ? readQuery(c, route.query, [...(route.repeatable ?? [])]) : refuseQuery(c);
      const raw = c.get('body');
      const input = new RequestInput(route, params, query, raw);
      if (!(DEFERS_TRANSACTION in handler)) await c.get('beginOwn')?.();
      const ctx = endpointContext(c, route, auth, service, bus);
      const answer = await handler({ ctx: ctx as EndpointContext<RouteSpec>, input: input as EndpointInput<RouteSpec> });
      return answer instanceof Response ? answer : respond(c, answer, route.successStatus ?? 200);
    });
  }
}
