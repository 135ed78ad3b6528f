import { describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { buildOpenApiDocument } from './openapi.js';

/*
 * The published API description passes Redocly's recommended ruleset with no errors (what
 * `redocly lint` checks: valid OpenAPI 3.1, operations with ids and summaries, security schemes
 * that exist, tags with descriptions, a licence), so generators and linters take it as it is.
 */
describe('OpenAPI lint (Redocly recommended)', () => {
  it('has no errors and no warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(buildOpenApiDocument()), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    const warnings = problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId}: ${p.location[0]?.pointer}`);
    expect(warnings).toEqual([]);
  }, 60_000);
});
