import { loadSecretBox, type BaseConfig, type SecretBox, type ServiceDeps } from '@ledgerline/service-kit';

export type SecretsConfig = BaseConfig & { SECRETS_KEY?: string; DATA_DIR?: string };

const boxes = new WeakMap<object, SecretBox>();

/**
 * The secret box of the settings service (loaded once per process): integration secrets and the
 * private signing keys of access tokens are sealed with it. Loaded first thing at boot, so a
 * production service without SECRETS_KEY stops before it seeds or prints anything.
 */
export function settingsSecretBox(deps: ServiceDeps<SecretsConfig>): SecretBox {
  let box = boxes.get(deps);
  if (!box) {
    box = loadSecretBox(deps.config, deps.log);
    boxes.set(deps, box);
  }
  return box;
}
