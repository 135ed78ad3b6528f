import type { RouteSpec } from '@ledgerline/contracts/routes';

export { routingOrder } from '@ledgerline/contracts/routes';

export function pathPattern(path: string): RegExp {
  const source = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([a-z_]+)/g, '[^/]+');
  return new RegExp(`^/v1${source}/?$`);
}

/** Methods offered on a path, for 405 answers with an Allow header. */
export function allowedMethods(routes: readonly RouteSpec[], path: string): string[] {
  return [...new Set(routes.filter((r) => pathPattern(r.path).test(path)).map((r) => r.method))];
}
