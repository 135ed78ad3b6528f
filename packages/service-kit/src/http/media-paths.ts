import { ROUTES, type RouteSpec, type ServiceName } from '@ledgerline/contracts';
import { pathPattern } from '../path-pattern.js';

/*
 * Which of a service's paths answer or take something other than JSON, read from the route table
 * (each operation's `produces` and `consumes`), so an operation names its media types in one place.
 */

export interface MediaPaths {
  /** Answered with their own media types (HTML, PDF, XML, CSV): JSON negotiation skips them. */
  nonJsonPaths: RegExp[];
  /** Also take `application/x-www-form-urlencoded`, kept as the raw string. */
  formBodyPaths: RegExp[];
  /** Take an XML document, passed to the handler as text. */
  xmlBodyPaths: RegExp[];
  /** Take a file in any encoding (XML, text or bytes), passed to the handler as the bytes that came. */
  fileBodyPaths: RegExp[];
  /** Take `multipart/form-data` (file uploads), passed to the handler as its parts (`MultipartBody`). */
  multipartBodyPaths: RegExp[];
}

const isJson = (type: string) => type === 'application/json';

export { pathPattern } from '../path-pattern.js';

/**
 * An operation that answers JSON or another type picks by its `:format` segment (`…/export/csv`):
 * only the other types' names skip negotiation, so `…/export/json` still answers 406 to a client
 * that accepts no JSON.
 */
function nonJsonPattern(route: RouteSpec): RegExp {
  const types = route.produces ?? [];
  if (!types.some(isJson) || !route.path.includes(':format')) return pathPattern(route.path);
  const names = types.filter((t) => !isJson(t)).map((t) => t.split('/')[1]);
  return pathPattern(route.path, { format: names });
}

export function mediaPathsOf(service: ServiceName, routes: readonly RouteSpec[] = ROUTES): MediaPaths {
  const own = routes.filter((r) => r.service === service);
  const consumes = (r: RouteSpec, type: string) => (r.consumes ?? []).includes(type);
  // a route that takes raw bytes takes every file type it names as bytes
  const file = own.filter((r) => consumes(r, 'application/octet-stream'));
  return {
    nonJsonPaths: own.filter((r) => (r.produces ?? []).some((t) => !isJson(t))).map(nonJsonPattern),
    formBodyPaths: own.filter((r) => consumes(r, 'application/x-www-form-urlencoded')).map((r) => pathPattern(r.path)),
    xmlBodyPaths: own.filter((r) => consumes(r, 'application/xml') && !file.includes(r)).map((r) => pathPattern(r.path)),
    fileBodyPaths: file.map((r) => pathPattern(r.path)),
    multipartBodyPaths: own.filter((r) => consumes(r, 'multipart/form-data')).map((r) => pathPattern(r.path)),
  };
}
