import { BusinessRuleError, ValidationError } from '@ledgerline/service-kit';
import { isForbiddenAddress, resolveAll } from './addresses.js';

export interface UrlPolicy {
  /** Production: only https. */
  requireHttps: boolean;
  /** WEBHOOKS_ALLOW_PRIVATE=1: loopback and private addresses allowed (development, tests). */
  allowPrivate: boolean;
}

const refuse = (message: string, code = 'webhook_url_not_allowed') => new BusinessRuleError(message, code, [{ path: 'url', message, code }]);

/**
 * The URL an endpoint is saved with: absolute http(s), no credentials, https in production, and
 * every address its host resolves to now a public one (each attempt checks again).
 */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('url is not an absolute URL', [{ path: 'url', message: 'an absolute http(s) URL', code: 'invalid_url' }]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(`url must be https, not ${url.protocol.slice(0, -1)}`);
  if (url.protocol === 'http:' && policy.requireHttps) throw refuse('url must be https');
  if (url.username || url.password) throw refuse('url may not carry a user name or password; authenticate by the signature');
  url.hash = '';
  if (!policy.allowPrivate) {
    let addresses: string[];
    try {
      addresses = await resolveAll(url.hostname);
    } catch {
      throw refuse(`${url.hostname} does not resolve`, 'webhook_url_unresolvable');
    }
    const bad = addresses.find(isForbiddenAddress);
    if (bad) {
      // a name's addresses are not echoed: the refusal would tell the caller what it resolves to inside
      const literal = bad === url.hostname.replace(/^\[|\]$/g, '');
      throw refuse(`${literal ? `${url.hostname} is` : `${url.hostname} resolves to`} a loopback, private, link-local or reserved address, which webhooks may not reach`);
    }
  }
  return url.toString();
}
