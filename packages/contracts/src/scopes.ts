/** Credential scopes: `<area>:read` for GET, `<area>:write` for other methods; `admin` grants all. */
export const SCOPE_AREAS = ['sales', 'purchase', 'finance', 'accounting', 'settings'] as const;
export const SCOPES = [...SCOPE_AREAS.flatMap((a) => [`${a}:read`, `${a}:write`] as const), 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export function requiredScope(area: string, method: string): string {
  return `${area}:${method === 'GET' || method === 'HEAD' ? 'read' : 'write'}`;
}

export function scopesAllow(granted: readonly string[], needed: string): boolean {
  return granted.includes('admin') || granted.includes(needed);
}
