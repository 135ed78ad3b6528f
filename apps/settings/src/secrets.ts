import { loadSecretBox, type BaseConfig, type SecretBox, type ServiceDeps } from '@ledgerline/service-kit';

export type SecretsConfig = BaseConfig & { SECRETS_KEY?: string; DATA_DIR?: string };

/** The settings service's resources: the box integration secrets and signing keys are sealed with. */
export interface SettingsResources {
  box: SecretBox;
}

export type SettingsDeps = ServiceDeps<SecretsConfig, SettingsResources>;

/**
 * Loads the secret box first thing at boot (the kit's `resources` hook), so a production service
 * without SECRETS_KEY stops before it seeds or prints anything.
 */
export function loadSettingsResources(deps: ServiceDeps<SecretsConfig, undefined>): SettingsResources {
  return { box: loadSecretBox(deps.config, deps.log) };
}
