import { SUBJECTS } from '@ledgerline/contracts';
import type { ConsumerDefinition, ServiceDeps } from '@ledgerline/service-kit';
import { applyTemplateSaved } from '../templates/replicas.js';

/** Keeps the local templates replica the renderings use (sales never calls settings to render). */
export function deliveryConsumers(_deps: ServiceDeps): ConsumerDefinition[] {
  return [
    {
      name: 'sales-settings-template-saved',
      subject: SUBJECTS.settingsTemplateSaved,
      handle: async (ctx, event) => {
        await applyTemplateSaved(ctx.em, event);
      },
    },
  ];
}
