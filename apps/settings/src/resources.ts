import { loadSecretBox, type BaseConfig, type SecretBox, type ServiceDeps } from '@ledgerline/service-kit';
import { WebhookSender } from './webhooks/sender.js';
import { FanoutDurables } from './webhooks/durables.js';
import type { WebhookSettings } from './webhooks/endpoints.js';
import { ExchangeRateFetcher } from './exchange-rates/fetcher.js';
import { RepoRateFetcher } from './repo-rates/fetcher.js';
import type { RegistersSettings } from './registers/registers.js';

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
  FX_RATES_URL?: string;
  FX_RATES_AFTER: string;
  FX_RATES_TIME_ZONE: string;
  FX_RATES_POLL_MS: number;
  REPO_RATES_URL?: string;
  REPO_RATES_POLL_MS: number;
  ARES_URL?: string;
  VIES_URL?: string;
  VAT_PAYERS_URL?: string;
  REGISTER_TIMEOUT_MS: number;
  REGISTER_CACHE_TTL: number;
};

/** The settings service's resources: the secret box, the webhook settings and sender, the exchange-rate and repo-rate fetchers. */
export interface SettingsResources {
  box: SecretBox;
  webhooks: WebhookSettings;
  sender: WebhookSender;
  /** Fetches the central bank's rates when FX_RATES_URL is set. */
  rateFetcher: ExchangeRateFetcher | null;
  /** Fetches the CNB's repo-rate history when REPO_RATES_URL is set. */
  repoRateFetcher: RepoRateFetcher | null;
  /** Where the public registers answer (ARES, VIES, the VAT payers' register), how long they are waited for and their answers kept. */
  registers: RegistersSettings;
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
  const { FX_RATES_URL: url, FX_RATES_AFTER: after, FX_RATES_TIME_ZONE: timeZone, FX_RATES_POLL_MS: pollMs } = deps.config;
  const rateFetcher = url ? new ExchangeRateFetcher(deps.orm, { url, after, timeZone, pollMs, timeoutMs: 10_000 }, deps.log, deps.metrics) : null;
  const repoUrl = deps.config.REPO_RATES_URL;
  const repoRateFetcher = repoUrl ? new RepoRateFetcher(deps.orm, { url: repoUrl, pollMs: deps.config.REPO_RATES_POLL_MS, timeoutMs: 10_000 }, deps.log, deps.metrics) : null;
  const register = (url: string | undefined) => ({ url, timeoutMs: deps.config.REGISTER_TIMEOUT_MS, freshMs: deps.config.REGISTER_CACHE_TTL });
  const registers: RegistersSettings = { ares: register(deps.config.ARES_URL), vies: register(deps.config.VIES_URL), vat_payers: register(deps.config.VAT_PAYERS_URL) };
  return {
    box,
    webhooks,
    sender,
    rateFetcher,
    repoRateFetcher,
    registers,
    close: async () => {
      await webhooks.durables.stop();
      await sender.stop();
      await rateFetcher?.stop();
      await repoRateFetcher?.stop();
    },
  };
}
