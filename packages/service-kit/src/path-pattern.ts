/**
 * The path of an operation as a pattern: `:name` segments match any one segment, or, given
 * `values`, only those.
 */
export function pathPattern(path: string, values: Record<string, string[]> = {}): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const allowed = values[segment.slice(1)];
      return allowed ? `(?:${allowed.join('|')})` : '[^/]+';
    })
    .join('/');
  return new RegExp(`^/v1${source}$`);
}
