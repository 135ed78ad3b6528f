import { describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ROUTES } from './routes.js';
import { buildOpenApiDocument, openApiPath } from './openapi.js';
import { OPERATION_EXAMPLES } from './openapi/examples.js';

/*
 * Every operation of the published document carries a realistic request and response example
 * (recorded from a live scenario), and every example is valid against the JSON Schema a client
 * generator reads from the document, and against the zod contract the service enforces.
 */

type Json = Record<string, any>;
const doc = buildOpenApiDocument() as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');

function validatorFor(schema: Json) {
  // the document's refs are local to it (#/components/…); compile against the registered copy
  const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
  return ajv.compile(rooted);
}

function errorsOf(schema: Json, value: unknown): string[] {
  const validate = validatorFor(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

const operations = ROUTES.map((route) => ({ route, op: doc.paths[openApiPath(route)][route.method.toLowerCase()] as Json }));

describe('OpenAPI examples', () => {
  it('every JSON request body and every JSON or CSV response has an example', () => {
    const missing: string[] = [];
    for (const { route, op } of operations) {
      const body = op.requestBody?.content?.['application/json'];
      if (body && body.example === undefined) missing.push(`${route.operationId} request`);
      const content = op.responses[String(route.successStatus ?? 200)].content as Json;
      for (const [mediaType, media] of Object.entries(content)) {
        if ((mediaType === 'application/json' || mediaType === 'text/csv') && media.example === undefined) {
          // an operation that answers both JSON and CSV by its {format} shows the one the scenario asked for
          if (mediaType === 'text/csv' && content['application/json']?.example !== undefined) continue;
          missing.push(`${route.operationId} ${mediaType} response`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it.each(operations.filter(({ op }) => op.requestBody?.content?.['application/json']?.example !== undefined).map(({ route, op }) => [route.operationId, route, op] as const))(
    '%s: the request example is valid against the document and the contract',
    (_id, route, op) => {
      const media = op.requestBody.content['application/json'];
      expect(errorsOf(media.schema, media.example)).toEqual([]);
      const parsed = route.body!.safeParse(media.example);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    },
  );

  it.each(operations.filter(({ route, op }) => op.responses[String(route.successStatus ?? 200)].content['application/json']?.example !== undefined).map(({ route, op }) => [route.operationId, route, op] as const))(
    '%s: the response example is valid against the document and the contract',
    (_id, route, op) => {
      const media = op.responses[String(route.successStatus ?? 200)].content['application/json'];
      expect(errorsOf(media.schema, media.example)).toEqual([]);
      const parsed = route.response!.safeParse(media.example);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    },
  );

  it('no example holds a live-looking secret', () => {
    const text = JSON.stringify(OPERATION_EXAMPLES);
    const secrets = [...text.matchAll(/"(?:key|client_secret|secret|access_token)":"((?:ak|cs|whsec)_[^"]*|eyJ[^"]*)"/g)].map((m) => m[1]);
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    for (const secret of secrets) expect(secret).toMatch(/EXAMPLE/);
  });

  it('a schema violation is caught (the check can fail)', () => {
    const create = operations.find(({ route }) => route.operationId === 'createInvoice')!.op;
    const media = create.requestBody.content['application/json'];
    expect(errorsOf(media.schema, { ...media.example, currency: 12 })).not.toEqual([]);
  });
});
