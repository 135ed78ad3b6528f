import { type EndpointHandlers, type Logger, type SecretBox } from '@ledgerline/service-kit';
import { apiKeyView } from '../domain/api-keys.js';
import { bankIntegrationView, hostingIntegrationView, putHostingIntegration, saveBankIntegration } from '../domain/integrations.js';
import { createOrganisation, organisationView, organisationViewById, updateOrganisation } from '../domain/organisations.js';

/** The organisation: its profile, its creation by the operator (with its first admin key), and its integrations. */
export function organisationRoutes(box: SecretBox, log: Logger): Pick<EndpointHandlers<'settings'>, 'getOrganisation' | 'updateOrganisation' | 'createOrganisation' | 'putHostingIntegration' | 'createBankIntegration'> {
  const integrations = { box, log };
  return {
    getOrganisation: async ({ ctx }) => organisationViewById({ em: ctx.em, orgId: ctx.auth.orgId }),
    updateOrganisation: async ({ ctx, input }) => organisationView(await updateOrganisation(ctx, input.body)),
    createOrganisation: async ({ ctx, input }) => {
      const { org, adminKey, secret } = await createOrganisation(ctx, input.body);
      ctx.c.set('secretAnswer', true);
      return { organisation: organisationView(org), admin_key: { ...apiKeyView(adminKey), key: secret } };
    },

    putHostingIntegration: async ({ ctx, input }) =>
      hostingIntegrationView(integrations, await putHostingIntegration(ctx.em, integrations, ctx.auth.orgId, input.params.id, input.body)),
    createBankIntegration: async ({ ctx, input }) =>
      bankIntegrationView(await saveBankIntegration(ctx.em, integrations, ctx.auth.orgId, 'sk.bank_a', input.body)),
  };
}
