import type { RouteSpec } from '@ledgerline/contracts';

/** Static segments before parameters, so `/credit-notes/check-no` wins over `/credit-notes/:id`. */
export function routingOrder(routes: RouteSpec[]): RouteSpec[] {
  const params = (r: RouteSpec) => (r.path.match(/:/g) ?? []).length;
  return [...routes].sort((a, b) => params(a) - params(b));
}

export function pathPattern(path: string): RegExp {
  const source = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([a-z_]+)/g, '[^/]+');
  return new RegExp(`^/v1${source}/?$`);
}

/** Methods offered on a path, for 405 answers with an Allow header. */
export function allowedMethods(routes: RouteSpec[], path: string): string[] {
  return [...new Set(routes.filter((r) => pathPattern(r.path).test(path)).map((r) => r.method))];
}
