/*
 * The published documents, generated from the contracts (never written by hand):
 * - `buildOpenApiDocument()`: OpenAPI 3.1.0 of every operation in ROUTES;
 * - `buildEventCatalogue()`: AsyncAPI 3.0.0 of every subject in SUBJECTS with its data schema.
 *
 * Schemas are converted with zod 4's `z.toJSONSchema`. Every schema with `.meta({ id })` becomes
 * a named component; when a component converts differently as input and as output (defaults,
 * transforms), the input variant is named `<Id>Input`.
 *
 * The generators live under openapi/: the schema conversion, the OpenAPI document, the event catalogue.
 */
export { API_BASE_PATH, PROBLEM_MEDIA_TYPE } from './openapi/json-schema.js';
export { buildOpenApiDocument, errorStatusesFor, openApiPath, type OpenApiOptions } from './openapi/openapi-document.js';
export { buildEventCatalogue, type EventCatalogueOptions } from './openapi/event-catalogue.js';
