import { SUBJECTS } from '@ledgerline/contracts';
import type { ConsumerDefinition, ServiceDeps } from '@ledgerline/service-kit';
import { applyTemplateSaved } from '../domain/template-replicas.js';

/** Keeps the local templates replica the renderings use (sales never calls settings to render). */
export function deliveryConsumers(_deps: ServiceDeps): ConsumerDefinition[] {
  return [
    {
      name: 'sales-settings-template-saved',
      subject: SUBJECTS.settingsTemplateSaved,
      handle: async (em, event) => {
        await applyTemplateSaved(em, event);
      },
    },
  ];
}
