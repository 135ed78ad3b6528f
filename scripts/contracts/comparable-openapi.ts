/*
 * What of two OpenAPI documents the comparison has to read (issue 79, part 4: the contracts test
 * took 90 s, 5 s for each comparison of the whole document). Two reductions that cannot change
 * which breaking changes are found:
 *  - documentation is taken out (`example`, `examples`: the recorded examples are most of the
 *    document, and a difference in them never breaks anyone, `isDocumentation`);
 *  - a path whose item is the same JSON in both documents, and every component it reaches through
 *    `$ref` (transitively) too, has no difference to report: it is left out of both, and so is
 *    every component no remaining path reaches (component differences count only where an
 *    operation uses them).
 */

type Json = Record<string, unknown>;

/** `example` and `examples` removed at any depth, but as the names of fields a schema declares. */
export function withoutExamples(node: unknown, parentKey = ''): unknown {
  if (Array.isArray(node)) return node.map((v) => withoutExamples(v));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if ((k === 'example' || k === 'examples') && parentKey !== 'properties') continue;
    out[k] = withoutExamples(v, k);
  }
  return out;
}

/** The `$ref`s a node holds, at any depth. */
function refsIn(node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const v of node) refsIn(v, into);
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string') into.add(v);
      else refsIn(v, into);
    }
  }
  return into;
}

/** The node a local `$ref` (`#/components/schemas/Invoice`) names, or undefined. */
function resolve(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

/** Every `$ref` reached from `start` in `doc`, following the components it names. */
function reach(doc: Json, start: unknown): Set<string> {
  const seen = new Set<string>();
  const todo = [...refsIn(start, new Set())];
  while (todo.length) {
    const ref = todo.pop()!;
    if (seen.has(ref)) continue;
    seen.add(ref);
    for (const next of refsIn(resolve(doc, ref), new Set())) if (!seen.has(next)) todo.push(next);
  }
  return seen;
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** The components of `doc` that the refs name, each in its section (schemas, responses, …); the security schemes always. */
function componentsReached(doc: Json, refs: Set<string>): Json {
  const all = (doc.components ?? {}) as Record<string, Json>;
  const kept: Record<string, Json> = { ...(all.securitySchemes ? { securitySchemes: all.securitySchemes } : {}) };
  for (const ref of refs) {
    const m = /^#\/components\/([^/]+)\/(.+)$/.exec(ref);
    if (!m || all[m[1]]?.[m[2]] === undefined) continue;
    (kept[m[1]] ??= {})[m[2]] = all[m[1]][m[2]];
  }
  return kept;
}

/** The two documents reduced to what can differ (see above), examples out. */
export function comparableOpenApi(released: Json, current: Json): { released: Json; current: Json } {
  const a = withoutExamples(released) as Json;
  const b = withoutExamples(current) as Json;
  const pathsA = (a.paths ?? {}) as Json;
  const pathsB = (b.paths ?? {}) as Json;
  const keptA: Json = {};
  const keptB: Json = {};
  for (const p of new Set([...Object.keys(pathsA), ...Object.keys(pathsB)])) {
    const [itemA, itemB] = [pathsA[p], pathsB[p]];
    const unchanged = itemA !== undefined && itemB !== undefined && same(itemA, itemB) && [...reach(a, itemA)].every((ref) => same(resolve(a, ref), resolve(b, ref)));
    if (unchanged) continue;
    if (itemA !== undefined) keptA[p] = itemA;
    if (itemB !== undefined) keptB[p] = itemB;
  }
  return {
    released: { ...a, paths: keptA, components: componentsReached(a, reach(a, keptA)) },
    current: { ...b, paths: keptB, components: componentsReached(b, reach(b, keptB)) },
  };
}
