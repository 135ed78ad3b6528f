import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '@ledgerline/contracts';
import { startStack, type ServiceKey, type Stack } from '../support/stack.js';

/*
 * One declaration per endpoint (issue 12): the contracts' route table is what the gateway routes
 * by, what OpenAPI describes and what each service serves. A declared operation that no service
 * serves, or a served /v1 route that is not declared, fails here.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
}, 120_000);
afterAll(async () => stack?.close());

describe('declared endpoints', () => {
  it('every service serves exactly the /v1 operations the contracts declare for it', () => {
    for (const name of ['settings', 'sales', 'purchase', 'finance', 'accounting'] as ServiceKey[]) {
      const served = stack.services[name]!.app.routes
        .filter((r) => r.path.startsWith('/v1/') && r.method !== 'ALL')
        .map((r) => `${r.method} ${r.path}`)
        .sort();
      const declared = ROUTES.filter((r) => r.service === name)
        .map((r) => `${r.method} /v1${r.path}`)
        .sort();
      expect({ name, served }).toEqual({ name, served: declared });
    }
  });
});
