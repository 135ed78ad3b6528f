import fs from 'node:fs';
import path from 'node:path';
import { EVENT_DATA_SCHEMAS, RETIRING_EVENT_VERSIONS, SUBJECTS, eventType, type Subject } from '@ledgerline/contracts/events';
import { buildEventCatalogue, buildOpenApiDocument } from '@ledgerline/contracts/openapi';
import { SchemaCollector } from '@ledgerline/contracts/openapi/json-schema';
import type { z } from 'zod';

/* The contracts others build on, as files: what a release promised, and what the code offers now. */

type Json = Record<string, unknown>;

export interface Contracts {
  /** The HTTP API (OpenAPI 3.1). */
  openapi: Json;
  /** The event catalogue (AsyncAPI 3.0): subjects, messages, versions and their sunsets. */
  asyncapi: Json;
  /** One JSON Schema (draft-07) of the data of each event type and version, by its CloudEvents type. */
  events: Record<string, Json>;
}

export const RELEASED_DIR = path.resolve(import.meta.dirname, '../../contracts/released');

/** The JSON Schema of one event version's data, standing alone (its named parts under `definitions`). */
export function eventDataSchema(type: string, subject: string, schema: z.ZodType): Json {
  const collector = new SchemaCollector('draft-07', '#/definitions/');
  const root = collector.use(schema, 'output');
  const definitions = collector.finish();
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `urn:ledgerline:event:${type}`,
    title: type,
    description: `The data of a ${type} event (CloudEvents envelope field data), published on ${subject}.<orgId>`,
    ...root(),
    ...(Object.keys(definitions).length ? { definitions } : {}),
  };
}

/** The contracts as the code at hand defines them. */
export function currentContracts(): Contracts {
  const events: Record<string, Json> = {};
  for (const subject of Object.values(SUBJECTS) as Subject[]) {
    const type = eventType(subject);
    events[type] = eventDataSchema(type, subject, EVENT_DATA_SCHEMAS[subject]);
  }
  for (const v of RETIRING_EVENT_VERSIONS) {
    const type = eventType(v.subject, v.version);
    events[type] = eventDataSchema(type, v.subject, v.schema);
  }
  return { openapi: buildOpenApiDocument(), asyncapi: buildEventCatalogue(), events };
}

const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, 'utf8')) as Json;

/** The contracts of the last release, as `npm run contracts:release` wrote them. */
export function readContracts(dir = RELEASED_DIR): Contracts {
  const eventsDir = path.join(dir, 'events');
  const events: Record<string, Json> = {};
  for (const file of fs.readdirSync(eventsDir).filter((f) => f.endsWith('.json')).sort()) events[file.slice(0, -'.json'.length)] = readJson(path.join(eventsDir, file));
  return { openapi: readJson(path.join(dir, 'openapi.json')), asyncapi: readJson(path.join(dir, 'asyncapi.json')), events };
}

/** Writes `contracts` as the released ones (replacing what was there). */
export function writeContracts(contracts: Contracts, dir = RELEASED_DIR): void {
  const eventsDir = path.join(dir, 'events');
  fs.rmSync(eventsDir, { recursive: true, force: true });
  fs.mkdirSync(eventsDir, { recursive: true });
  const write = (file: string, json: Json) => fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  write(path.join(dir, 'openapi.json'), contracts.openapi);
  write(path.join(dir, 'asyncapi.json'), contracts.asyncapi);
  for (const [type, schema] of Object.entries(contracts.events)) write(path.join(eventsDir, `${type}.json`), schema);
}
