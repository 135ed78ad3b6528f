import type { z } from 'zod';

type Schema = z.core.$ZodType;
type Def = { type: string } & Record<string, unknown>;

const defOf = (s: Schema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Wrappers that leave the shape of what they wrap as it is. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch', 'success']);

/**
 * The schema that decides the shape of a value as the client sent it: wrappers unwrapped, a pipe's
 * input side (the output side of a preprocessing pipe, whose input is any value), a lazy one's target.
 */
function unwrap(schema: Schema): Schema {
  let s = schema;
  for (let depth = 0; depth < 64; depth++) {
    const def = defOf(s);
    if (WRAPPERS.has(def.type)) s = def.innerType as Schema;
    else if (def.type === 'pipe') s = defOf(def.in as Schema).type === 'transform' ? (def.out as Schema) : (def.in as Schema);
    else if (def.type === 'lazy') s = (def.getter as () => Schema)();
    else return s;
  }
  return s;
}

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

type Shape = Record<string, Schema>;

/**
 * What a schema says of the value at its place, once per schema (a request's walk meets the same
 * schemas for every line of every document): the keys of an object, `open` when any key goes (a
 * record, a catch-all, `unknown`), an array's element, or a union or intersection to look at
 * with the value in hand; `leaf` for the rest.
 */
type Node =
  | { kind: 'object'; shapes: Shape[] }
  | { kind: 'open' }
  | { kind: 'array'; element: Schema }
  | { kind: 'union'; options: Schema[]; element: Schema | undefined }
  | { kind: 'intersection'; left: Schema; right: Schema }
  | { kind: 'leaf' };

const OPEN: Node = { kind: 'open' };
const LEAF: Node = { kind: 'leaf' };
const nodes = new WeakMap<Schema, Node>();

function nodeOf(schema: Schema): Node {
  let node = nodes.get(schema);
  if (node) return node;
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case 'object': {
      const catchall = def.catchall as Schema | undefined;
      node = catchall && defOf(catchall).type !== 'never' ? OPEN : { kind: 'object', shapes: [def.shape as Shape] };
      break;
    }
    case 'record':
    case 'unknown':
    case 'any':
      node = OPEN;
      break;
    case 'array':
      node = { kind: 'array', element: def.element as Schema };
      break;
    case 'union': {
      nodes.set(schema, LEAF); // a union that holds itself (through a lazy option) stops here
      const options = def.options as Schema[];
      // a one-or-many parameter (`item | item[]`): an array takes the array option's element
      const arrays = options.map(nodeOf).filter((n): n is Extract<Node, { kind: 'array' }> => n.kind === 'array');
      node = { kind: 'union', options, element: arrays[0]?.element };
      break;
    }
    case 'intersection':
      node = { kind: 'intersection', left: def.left as Schema, right: def.right as Schema };
      break;
    default:
      node = LEAF;
  }
  nodes.set(schema, node);
  return node;
}

/**
 * The object shapes that judge `value`'s keys at a schema's place: null when the schema takes no
 * object there, `open` when it takes any key. A union's options are narrowed to those that accept
 * the value; both sides of an intersection see the whole value, so a key either knows is known.
 */
function shapesOf(schema: Schema | undefined, value: unknown): Shape[] | 'open' | null {
  if (!schema) return null;
  const node = nodeOf(schema);
  switch (node.kind) {
    case 'object':
      return node.shapes;
    case 'open':
      return 'open';
    case 'intersection': {
      const left = shapesOf(node.left, value);
      const right = shapesOf(node.right, value);
      if (left === 'open' || right === 'open') return 'open';
      if (!left && !right) return null;
      return [Object.assign({}, ...(left ?? []), ...(right ?? []))];
    }
    case 'union': {
      const accepting = node.options.filter((o) => (o as z.ZodType).safeParse(value).success);
      const shapes: Shape[] = [];
      for (const option of accepting.length ? accepting : node.options) {
        const found = shapesOf(option, value);
        if (found === 'open') return 'open';
        if (found) shapes.push(...found);
      }
      return shapes.length ? shapes : null;
    }
    default:
      return null;
  }
}

function elementOf(schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  const node = nodeOf(schema);
  return node.kind === 'array' || node.kind === 'union' ? node.element : undefined;
}

/** The schema of `key` in the first shape that knows it. */
function fieldOf(shapes: Shape[], key: string): Schema | undefined {
  for (const shape of shapes) if (hasOwn(shape, key)) return shape[key];
  return undefined;
}

/**
 * The paths of the keys in `value` that neither `schema` nor `readOnly` knows, walking both
 * side by side, depth first in the order the keys came. `readOnly` is the resource as the API
 * answers it: its fields that a request cannot set (ids, totals, timestamps) are not refused, so
 * a resource read can be sent back as it is. A key only `readOnly` knows is not looked into: it
 * is ignored whatever it holds.
 */
export function unknownFields(schema: Schema, value: unknown, readOnly?: Schema): Array<ReadonlyArray<PropertyKey>> {
  const found: Array<ReadonlyArray<PropertyKey>> = [];
  walk(schema, readOnly, value, [], found);
  return found;
}

/** Deeper than any document the contracts describe; the body parser already bounds nesting. */
const MAX_DEPTH = 64;

function walk(schema: Schema | undefined, readOnly: Schema | undefined, value: unknown, path: PropertyKey[], found: Array<ReadonlyArray<PropertyKey>>): void {
  if (!schema || path.length > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const element = elementOf(schema);
    if (!element) return;
    const readOnlyElement = elementOf(readOnly);
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walk(element, readOnlyElement, value[i], path, found);
      path.pop();
    }
    return;
  }
  const own = shapesOf(schema, value);
  if (own === null || own === 'open') return;
  const other = shapesOf(readOnly, value);
  if (other === 'open') return;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const child = fieldOf(own, key);
    const readOnlyChild = other ? fieldOf(other, key) : undefined;
    path.push(key);
    if (child) walk(child, readOnlyChild, object[key], path, found);
    else if (!readOnlyChild) found.push([...path]);
    path.pop();
  }
}
