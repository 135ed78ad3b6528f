import { z } from 'zod';

/* What a route declaration is (routes/<service>.ts declare them, routes.ts gathers them). */

/** Body of an HTML rendering (text/html). */
export const htmlDocumentSchema = z.string().describe('HTML document');
/** An e-invoice (application/xml). */
export const xmlDocumentSchema = z.string().describe('XML document');
/** Body of a PDF rendering (application/pdf). */
export const pdfDocumentSchema = z.string().describe('PDF document (binary)');

export type ServiceName = 'sales' | 'purchase' | 'finance' | 'accounting' | 'settings';
/** A service's own area, or `contacts`: the directory settings keeps for sales and purchase alike (decision 234). */
export type ScopeArea = ServiceName | 'contacts';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One public operation. The gateway routes and authorises by this table; the OpenAPI document
 * is generated from it. `path` uses Hono syntax (`:id`) and is relative to `/v1`.
 */
export interface RouteSpec {
  method: HttpMethod;
  path: string;
  service: ServiceName;
  /** Scope area; GET needs `<area>:read`, other methods `<area>:write` (`admin` grants all). */
  scope: ScopeArea;
  operationId: string;
  summary: string;
  /** Spec endpoint number (1–26) or undefined for a architecture §1 extension. */
  specNo?: number;
  tag: string;
  successStatus?: number;
  /** Media types of the success response (JSON unless stated). */
  produces?: readonly string[];
  /** Path parameters (coerced from text). */
  pathParams?: z.ZodObject;
  /** Query parameters (coerced from text; repeatable ones accept one value or an array). */
  query?: z.ZodObject;
  /** Query parameters that may be given several times (`?sort=a&sort=-b`); the others keep their last value. */
  repeatable?: readonly string[];
  /** Request body (JSON). */
  body?: z.ZodType;
  /** Success response body (JSON, or the text/binary body of `produces`). */
  response?: z.ZodType;
  /** Open operations need no credential (only the token endpoint). */
  open?: boolean;
  /** Request body media types beyond the JSON family (the token endpoint also takes a form). */
  consumes?: readonly string[];
  /** Authorised only by the operator token (`OPERATOR_TOKEN`), not by API keys or access tokens. */
  operatorOnly?: boolean;
  /** A request without a body is 400 (otherwise it is read as `{}`). */
  bodyRequired?: boolean;
}

/** Static segments before parameters, so `/credit-notes/check-no` wins over `/credit-notes/:id`. */
export function routingOrder<R extends RouteSpec>(routes: readonly R[]): R[] {
  const params = (r: R) => (r.path.match(/:/g) ?? []).length;
  return [...routes].sort((a, b) => params(a) - params(b));
}

/** A route as a service's module declares it: its service given once for all, its scope when it is not the service's own. */
export type DeclaredRoute = Omit<RouteSpec, 'service' | 'scope'> & { scope?: ScopeArea };

/** The full declarations of one service's routes: `service` on every one, `scope` the service's unless stated. */
export type ServiceRoutes<S extends ServiceName, R extends readonly DeclaredRoute[]> = {
  readonly [K in keyof R]: R[K] & { service: S; scope: R[K] extends { scope: infer A } ? A : S };
};

/** One service's routes, each given its service and (unless it names one) the service's scope. */
export function serviceRoutes<const S extends ServiceName, const R extends readonly DeclaredRoute[]>(service: S, routes: R): ServiceRoutes<S, R> {
  return routes.map((r) => ({ scope: service, ...r, service })) as unknown as ServiceRoutes<S, R>;
}
