/**
 * Content negotiation for JSON responses: application/json, text/json and text/plain carry the
 * same JSON body; `*\/*`, `application/*`, `text/*` or no Accept get application/json.
 * Returns null when the client accepts none of them (the caller answers 406).
 */
const JSON_TYPES = ['application/json', 'text/json', 'text/plain'] as const;
export type JsonMediaType = (typeof JSON_TYPES)[number];

interface AcceptEntry {
  type: string;
  q: number;
  order: number;
}

export function parseAccept(header: string | undefined): AcceptEntry[] {
  if (!header || !header.trim()) return [];
  return header.split(',').map((part, order) => {
    const [type, ...params] = part.trim().split(';');
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k === 'q' && v !== undefined) q = Number(v);
    }
    return { type: type.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, order };
  });
}

function matches(range: string, type: string): boolean {
  if (range === '*/*') return true;
  if (range.endsWith('/*')) return type.startsWith(range.slice(0, -1));
  return range === type;
}

/** Picks the first acceptable of `offered` by q-value, then by the client's order. */
export function negotiate<T extends string>(header: string | undefined, offered: readonly T[]): T | null {
  const entries = parseAccept(header);
  if (entries.length === 0) return offered[0];
  let best: { type: T; q: number; order: number; specificity: number } | null = null;
  for (const t of offered) {
    for (const e of entries) {
      if (!matches(e.type, t)) continue;
      const specificity = e.type === t ? 2 : e.type === '*/*' ? 0 : 1;
      if (e.q <= 0) continue;
      if (
        !best ||
        e.q > best.q ||
        (e.q === best.q && specificity > best.specificity) ||
        (e.q === best.q && specificity === best.specificity && e.order < best.order)
      )
        best = { type: t, q: e.q, order: e.order, specificity };
    }
  }
  return best?.type ?? null;
}

export function negotiateJson(header: string | undefined): JsonMediaType | null {
  return negotiate(header, JSON_TYPES);
}

/** Request body types the interface accepts: application/json, text/json, application/*+json. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type === 'text/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}
