import { Hono } from 'hono';
import { complianceEvaluateBodySchema, idPathParams } from '@ledgerline/contracts';
import { caller, parseOrThrow, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { DEFAULT_RULES, type RuleTable } from '@ledgerline/compliance';
import { evaluateInvoices, latestCompliance } from '../domain/compliance.js';

/**
 * #17 `POST /compliance/evaluate` (202, one record per requested id) and
 * `GET /:id/compliance` (the latest record), mounted at /v1/sales/invoices.
 */
export function complianceRoutes(_deps: ServiceDeps, rules: RuleTable = DEFAULT_RULES) {
  const r = new Hono<KitEnv>();

  r.post('/compliance/evaluate', async (c) => {
    const auth = caller(c);
    const ids = parseOrThrow(complianceEvaluateBodySchema, c.get('body'));
    return respond(c, await evaluateInvoices(c.get('em'), auth.orgId, ids, rules), 202);
  });

  r.get('/:id/compliance', async (c) => {
    caller(c);
    const { id } = parseOrThrow(idPathParams, c.req.param(), 'path');
    return respond(c, await latestCompliance(c.get('em'), id));
  });
  return r;
}
