import { z } from 'zod';

/* zod schemas → JSON Schema components: conversion, $ref renaming, collection. */

export type Json = Record<string, unknown>;
export type Io = 'input' | 'output';
export type Target = 'draft-2020-12' | 'draft-07';

export const API_BASE_PATH = '/v1';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

// --- schema conversion -----------------------------------------------------------------------

export interface Converted {
  root: Json;
  defs: Record<string, Json>;
}

/** Drops what every object schema of ours says needlessly: unknown fields are ignored, not refused. */
export function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === 'additionalProperties' && v === false) continue;
      if (k === '$schema') continue;
      if (k === 'format' && v === 'base64') {
        out.contentEncoding = 'base64';
        continue;
      }
      out[k] = clean(v);
    }
    return out;
  }
  return node;
}

export function rewriteRefs(node: unknown, rename: (id: string) => string, defsPrefix: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, rename, defsPrefix));
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(defsPrefix)) {
        out[k] = rename(decodeURIComponent(v.slice(defsPrefix.length)));
      } else out[k] = rewriteRefs(v, rename, defsPrefix);
    }
    return out;
  }
  return node;
}

export function refsIn(node: unknown, defsPrefix: string, acc = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, defsPrefix, acc));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(defsPrefix)) acc.add(decodeURIComponent(v.slice(defsPrefix.length)));
      else refsIn(v, defsPrefix, acc);
    }
  }
  return acc;
}

/**
 * Converts many zod schemas into one set of named components. `use` registers a schema and
 * returns a function that yields its final JSON Schema (refs pointing into `componentPrefix`);
 * call `finish()` once every schema is registered.
 */
export class SchemaCollector {
  private readonly cache = new Map<z.ZodType, Partial<Record<Io, Converted>>>();
  private readonly defs: Record<Io, Map<string, string>> = { input: new Map(), output: new Map() };
  private readonly pending: Array<() => void> = [];
  private renamedInputs = new Set<string>();
  private readonly defsPrefix: string;

  constructor(
    private readonly target: Target,
    private readonly componentPrefix: string,
  ) {
    this.defsPrefix = target === 'draft-07' ? '#/definitions/' : '#/$defs/';
  }

  private convert(schema: z.ZodType, io: Io): Converted {
    const entry = this.cache.get(schema) ?? {};
    const found = entry[io];
    if (found) return found;
    const raw = z.toJSONSchema(schema, { target: this.target, io, unrepresentable: 'any' }) as Json;
    const defsKey = this.target === 'draft-07' ? 'definitions' : '$defs';
    const defs = (raw[defsKey] ?? {}) as Record<string, Json>;
    const rootRaw: Json = { ...raw };
    delete rootRaw[defsKey];
    const converted: Converted = { root: clean(rootRaw) as Json, defs: {} };
    for (const [id, def] of Object.entries(defs)) {
      const json = clean(def) as Json;
      converted.defs[id] = json;
      const text = JSON.stringify(json);
      const seen = this.defs[io].get(id);
      if (seen !== undefined && seen !== text) {
        throw new Error(`Two different schemas carry the component id "${id}" (${io})`);
      }
      this.defs[io].set(id, text);
    }
    entry[io] = converted;
    this.cache.set(schema, entry);
    return converted;
  }

  /** Registers `schema` for `io`; the returned thunk gives its JSON Schema after `finish()`. */
  use(schema: z.ZodType, io: Io): () => Json {
    const converted = this.convert(schema, io);
    let result: Json | undefined;
    this.pending.push(() => {
      result = rewriteRefs(converted.root, (id) => this.refTo(id, io), this.defsPrefix) as Json;
    });
    return () => {
      if (!result) throw new Error('SchemaCollector.finish() has not run');
      return result;
    };
  }

  private componentName(id: string, io: Io): string {
    return io === 'input' && this.renamedInputs.has(id) ? `${id}Input` : id;
  }

  private refTo(id: string, io: Io): string {
    return `${this.componentPrefix}${encodeURIComponent(this.componentName(id, io))}`;
  }

  /** Resolves input/output naming and returns the named component schemas. */
  finish(): Record<string, Json> {
    const { input, output } = this.defs;
    const differing = new Set<string>();
    for (const [id, text] of input) if (output.has(id) && output.get(id) !== text) differing.add(id);
    // A component whose input form refers to a renamed one must be renamed too.
    let grew = true;
    while (grew) {
      grew = false;
      for (const [id, text] of input) {
        if (differing.has(id) || !output.has(id)) continue;
        if ([...refsIn(JSON.parse(text), this.defsPrefix)].some((r) => differing.has(r))) {
          differing.add(id);
          grew = true;
        }
      }
    }
    this.renamedInputs = differing;
    const components: Record<string, Json> = {};
    for (const io of ['output', 'input'] as const) {
      for (const [id, text] of this.defs[io]) {
        const name = this.componentName(id, io);
        if (components[name]) continue;
        components[name] = rewriteRefs(JSON.parse(text), (r) => this.refTo(r, io), this.defsPrefix) as Json;
      }
    }
    for (const run of this.pending) run();
    return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
  }
}
