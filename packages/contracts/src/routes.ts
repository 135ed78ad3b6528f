import type { RouteSpec, ServiceName } from './routes/spec.js';
import { settingsRoutes } from './routes/settings.js';
import { salesRoutes } from './routes/sales.js';
import { purchaseRoutes } from './routes/purchase.js';
import { financeRoutes } from './routes/finance.js';
import { accountingRoutes } from './routes/accounting.js';

export { htmlDocumentSchema, pdfDocumentSchema, routingOrder, serviceRoutes, xmlDocumentSchema, type DeclaredRoute, type HttpMethod, type RouteSpec, type ScopeArea, type ServiceName } from './routes/spec.js';

/*
 * The route table: every public operation, declared by the service that serves it
 * (routes/<service>.ts, grouped by resource). The gateway routes and authorises by it, the
 * services serve from it and the OpenAPI document is generated from it.
 */
const DECLARED = [...settingsRoutes, ...salesRoutes, ...purchaseRoutes, ...financeRoutes, ...accountingRoutes] as const;

/** Every public operation, for code that treats them alike (gateway routing, OpenAPI). */
export const ROUTES: readonly RouteSpec[] = DECLARED;

/** One declared operation, with the exact types of its schemas. */
export type Route = (typeof DECLARED)[number];
export type OperationId = Route['operationId'];
/** The declaration of one operation. */
export type RouteOf<Id extends OperationId> = Extract<Route, { operationId: Id }>;
/** The operations a service owns. */
export type ServiceRoute<S extends ServiceName> = Extract<Route, { service: S }>;

/** The declarations by operationId (`ROUTE.createCreditNote`). */
export const ROUTE = Object.fromEntries(DECLARED.map((r) => [r.operationId, r])) as { [R in Route as R['operationId']]: R };

