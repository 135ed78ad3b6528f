import { z } from 'zod';

/** Credential scopes: `<area>:read` for GET, `<area>:write` for other methods; `admin` grants all (architecture §3). */
export const SCOPE_AREAS = ['sales', 'purchase', 'finance', 'accounting', 'settings', 'contacts'] as const;
export type ScopeAreaName = (typeof SCOPE_AREAS)[number];

export const SCOPES = [
  'sales:read',
  'sales:write',
  'purchase:read',
  'purchase:write',
  'finance:read',
  'finance:write',
  'accounting:read',
  'accounting:write',
  'settings:read',
  'settings:write',
  'contacts:read',
  'contacts:write',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** A scope name of an API key or API client. */
export const scopeSchema = z.enum(SCOPES).describe('<area>:read or <area>:write for sales, purchase, finance, accounting, settings, contacts (the directory of customers and vendors, decision 234); or admin (all)');

/** The scope an operation needs: `<area>:read` for GET (and HEAD), `<area>:write` otherwise. */
export function requiredScope(area: string, method: string): Scope {
  const m = method.toUpperCase();
  return `${area}:${m === 'GET' || m === 'HEAD' ? 'read' : 'write'}` as Scope;
}

/** Whether granted scopes satisfy a needed one (`admin` satisfies all). */
export function hasScope(granted: readonly string[], needed: string): boolean {
  return granted.includes('admin') || granted.includes(needed);
}

/** Alias of `hasScope`. */
export const scopesAllow = hasScope;

/**
 * The scopes in `requested` that a credential holding `granter` may not hand out: a credential
 * grants only scopes it holds itself, and `admin` grants anything (decision 52).
 */
export function ungrantableScopes(granter: readonly string[], requested: readonly string[]): string[] {
  if (granter.includes('admin')) return [];
  return [...new Set(requested.filter((s) => !granter.includes(s)))];
}

/** Whether a string names a scope of the platform. */
export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
