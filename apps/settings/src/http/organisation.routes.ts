import { Hono } from 'hono';
import { parseOrThrow, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { apiKeyView } from '../domain/api-keys.js';
import { createOrganisation, getOrganisation, organisationView, updateOrganisation } from '../domain/organisations.js';
import { organisationCreateSchema, organisationInputSchema } from './schemas.js';
import { caller, operatorOnly } from './auth.js';

export function organisationRoutes(deps: ServiceDeps) {
  const r = new Hono<KitEnv>();
  r.get('/settings/organisation', async (c) => {
    const auth = caller(c);
    return respond(c, organisationView(await getOrganisation(c.get('em'), auth.orgId)));
  });
  r.put('/settings/organisation', async (c) => {
    const auth = caller(c);
    const input = parseOrThrow(organisationInputSchema, c.get('body'));
    return respond(c, organisationView(await updateOrganisation(c.get('em'), auth.orgId, input, deps.emit)));
  });
  r.post('/admin/organisations', async (c) => {
    operatorOnly(c);
    const input = parseOrThrow(organisationCreateSchema, c.get('body'));
    const { org, adminKey, secret } = await createOrganisation(c.get('em'), input, deps.emit);
    c.set('secretAnswer', true);
    return respond(c, { organisation: organisationView(org), admin_key: { ...apiKeyView(adminKey), key: secret } });
  });
  return r;
}
