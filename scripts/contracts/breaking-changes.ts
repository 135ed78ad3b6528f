import { apiCompare, jsonSchemaRules, reverseClassifyRuleTransformer, transformComapreRules, type Diff } from 'api-smart-diff';
import type { Contracts } from './released-contracts.js';
import { comparableOpenApi } from './comparable-openapi.js';

/*
 * Which differences between the released contracts and the current ones break someone who built
 * on the release. The differences and their first classification are api-smart-diff's (it reads
 * OpenAPI 3.1 and JSON Schema, follows $refs, and knows a request from a response); our policy
 * then decides four cases where that tool's defaults and our promise to integrators differ:
 *
 *  - a response or event field removed breaks readers even when it was optional (the tool calls
 *    it compatible when the schema allows unknown properties);
 *  - an enum value removed breaks (a client that sends or filters by it), in a request or a
 *    response; an enum value added to a response or event does not: readers must accept values
 *    they do not know (docs/integrations.md);
 *  - a changed `type` breaks, whichever way;
 *  - a difference the tool cannot classify breaks until a person looks at it;
 * and documentation (examples, tags, titles, descriptions) never breaks anyone, whatever the
 * tool makes of a recorded example that changed.
 */

type Json = Record<string, unknown>;

export interface BreakingChange {
  /** `openapi`, `asyncapi` or the CloudEvents type of an event version. */
  contract: string;
  /** Where, as a JSON pointer into the released contract. */
  where: string;
  /** added, removed, replaced or renamed. */
  action: string;
  description: string;
}

type Reading = 'request' | 'response';

/** Documentation: examples, tags, the document's own info. Nobody's code reads them. */
const DOCUMENTATION = new Set(['example', 'examples', 'tags', 'info', 'description', 'summary', 'title']);
const isDocumentation = (diff: Diff) => diff.path.some((p, i) => DOCUMENTATION.has(String(p)) && (i === 0 || diff.path[i - 1] !== 'properties'));

function isBreaking(diff: Diff, reading: Reading): boolean {
  if (isDocumentation(diff)) return false;
  // a scope added to the security scheme grants more, and no credential holds it yet
  if (diff.action === 'add' && diff.path[1] === 'securitySchemes' && diff.path.at(-2) === 'scopes') return false;
  const key = diff.path.at(-1);
  const parent = diff.path.at(-2);
  if (parent === 'enum') return diff.action === 'remove';
  if (reading === 'response' && parent === 'properties' && diff.action === 'remove') return true;
  if (key === 'type' && diff.action === 'replace') return true;
  return diff.type === 'breaking' || diff.type === 'unclassified';
}

/** Whether two contracts are the same JSON, key order included (how both are written and read). */
const sameJson = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

const pointer = (path: readonly (string | number)[]) => `/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

function describe(diff: Diff): string {
  const what = diff.path.at(-2) === 'enum' ? `enum value ${JSON.stringify(diff.before ?? diff.after)}` : String(diff.path.at(-1));
  return diff.description ?? `${what} ${diff.action === 'replace' ? `changed from ${JSON.stringify(diff.before)} to ${JSON.stringify(diff.after)}` : `${diff.action}d`}`;
}

/** The breaking differences of the HTTP API. Component schemas count where operations use them (the tool resolves them into each). */
export function openApiBreakingChanges(released: Json, current: Json): BreakingChange[] {
  // the same document has nothing to say, and is told apart in a fraction of the comparison's time
  if (sameJson(released, current)) return [];
  // only the paths that can differ, without their recorded examples: the same findings, a fraction of the time
  const comparable = comparableOpenApi(released, current);
  const { diffs } = apiCompare(comparable.released, comparable.current);
  return diffs
    .filter((d) => d.path[0] !== 'components' || d.path[1] === 'securitySchemes')
    .filter((d) => isBreaking(d, d.path.includes('responses') ? 'response' : 'request'))
    .map((d) => ({ contract: 'openapi', where: pointer(d.path), action: d.action, description: describe(d) }));
}

/** Event data is read, never written, by its subscribers: compared as a response is. */
const EVENT_RULES = transformComapreRules(jsonSchemaRules(), reverseClassifyRuleTransformer);

export function eventBreakingChanges(type: string, released: Json, current: Json): BreakingChange[] {
  if (sameJson(released, current)) return [];
  const { diffs } = apiCompare(released, current, { rules: EVENT_RULES });
  return diffs
    .filter((d) => d.path[0] !== 'definitions') // the named parts are resolved into the root's own diffs
    .filter((d) => isBreaking(d, 'response'))
    .map((d) => ({ contract: type, where: pointer(d.path), action: d.action, description: describe(d) }));
}

interface CatalogueMessage {
  name: string;
  'x-cloudevents-type': string;
  'x-sunset'?: string;
}

/** Every event version of a catalogue, with the subject it is published on and its sunset. */
function catalogueVersions(asyncapi: Json): Map<string, { subject: string; address: string; sunset?: string }> {
  const channels = (asyncapi.channels ?? {}) as Record<string, { address: string; messages: Record<string, { $ref: string }> }>;
  const messages = ((asyncapi.components as Json | undefined)?.messages ?? {}) as Record<string, CatalogueMessage>;
  const versions = new Map<string, { subject: string; address: string; sunset?: string }>();
  for (const channel of Object.values(channels)) {
    for (const ref of Object.values(channel.messages)) {
      const message = messages[ref.$ref.split('/').pop()!];
      if (message) versions.set(message['x-cloudevents-type'], { subject: message.name, address: channel.address, sunset: message['x-sunset'] });
    }
  }
  return versions;
}

/**
 * Every released event version must still be published, on the same subject, with data its
 * readers can read, until its sunset (`today` on or after it: it may go).
 */
export function breakingChanges(released: Contracts, current: Contracts, today = new Date().toISOString().slice(0, 10)): BreakingChange[] {
  const found = openApiBreakingChanges(released.openapi, current.openapi);
  const before = catalogueVersions(released.asyncapi);
  const after = catalogueVersions(current.asyncapi);
  for (const [type, was] of before) {
    const now = after.get(type);
    const retired = was.sunset !== undefined && today > was.sunset;
    if (!now) {
      if (!retired) found.push({ contract: 'asyncapi', where: `/components/messages (${type})`, action: 'remove', description: `event ${type} is no longer published${was.sunset ? ` (its sunset is ${was.sunset})` : ''}` });
      continue;
    }
    if (now.address !== was.address) {
      found.push({ contract: 'asyncapi', where: `/channels (${type})`, action: 'rename', description: `event ${type} moved from subject ${was.address} to ${now.address}` });
    }
  }
  for (const [type, schema] of Object.entries(released.events)) {
    const now = current.events[type];
    if (!now) {
      const was = before.get(type);
      const retired = was?.sunset !== undefined && today > was.sunset;
      if (!retired) found.push({ contract: type, where: '/', action: 'remove', description: `the data schema of ${type} is gone` });
      continue;
    }
    found.push(...eventBreakingChanges(type, schema, now));
  }
  return found;
}
