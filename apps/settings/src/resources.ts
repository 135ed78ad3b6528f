import { loadSecretBox, type BaseConfig, type SecretBox, type ServiceDeps } from '@ledgerline/service-kit';
import { WebhookSender } from './webhooks/sender.js';
import { FanoutDurables } from './webhooks/durables.js';
import type { WebhookSettings } from './webhooks/endpoints.js';

export type SecretsConfig = BaseConfig & {
  SECRETS_KEY?: string;
  DATA_DIR?: string;
  WEBHOOKS_ALLOW_PRIVATE: boolean;
  WEBHOOK_RETRY_SCHEDULE: number[];
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_POLL_MS: number;
  WEBHOOK_FANOUT_SWEEP_MS: number;
  WEBHOOK_SECRET_OVERLAP: number;
  WEBHOOK_MAX_ENDPOINTS: number;
  WEBHOOK_CONCURRENCY: number;
  WEBHOOK_ORGANISATION_CONCURRENCY: number;
  WEBHOOK_ENDPOINT_CONCURRENCY: number;
};

/** The settings service's resources: the secret box, and the webhook settings and sender. */
export interface SettingsResources {
  box: SecretBox;
  webhooks: WebhookSettings;
  sender: WebhookSender;
  close(): Promise<void>;
}

export type SettingsDeps = ServiceDeps<SecretsConfig, SettingsResources>;

/**
 * Loads the secret box first thing at boot (the kit's `resources` hook), so a production service
 * without SECRETS_KEY stops before it seeds or prints anything.
 */
export function loadSettingsResources(deps: ServiceDeps<SecretsConfig, undefined>): SettingsResources {
  const box = loadSecretBox(deps.config, deps.log);
  const webhooks: WebhookSettings = {
    box,
    policy: { requireHttps: deps.config.NODE_ENV === 'production', allowPrivate: deps.config.WEBHOOKS_ALLOW_PRIVATE },
    overlapMs: deps.config.WEBHOOK_SECRET_OVERLAP,
    log: deps.log,
    durables: new FanoutDurables(deps.orm, deps.log),
    maxEndpoints: deps.config.WEBHOOK_MAX_ENDPOINTS,
  };
  const sender = new WebhookSender(
    deps.orm,
    webhooks,
    {
      retryScheduleMs: deps.config.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
      pollMs: deps.config.WEBHOOK_POLL_MS,
      concurrency: deps.config.WEBHOOK_CONCURRENCY,
      perOrganisation: deps.config.WEBHOOK_ORGANISATION_CONCURRENCY,
      perEndpoint: deps.config.WEBHOOK_ENDPOINT_CONCURRENCY,
    },
    deps.log,
    deps.metrics,
  );
  return {
    box,
    webhooks,
    sender,
    close: async () => {
      await webhooks.durables.stop();
      await sender.stop();
    },
  };
}
