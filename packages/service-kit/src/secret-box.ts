import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from './config.js';
import type { Logger } from './logger.js';

/**
 * AES-256-GCM encryption of secrets at rest (integration API keys, signatures, bank configs).
 *
 * Sealed format: `v1.<kid>.<base64(iv ‖ ciphertext ‖ tag)>`, where kid is the first 8 hex digits
 * of SHA-256(key) so a value sealed under another key is recognised rather than mis-decrypted.
 * The associated data (e.g. `hosting:<org>:<id>:api_key`) binds a sealed value to its row and
 * field: copying a ciphertext to another row makes it fail to open.
 */

/** Configuration keys of the secret box; spread into a service's `configSchema`. */
export const secretBoxConfigShape = {
  /** 32 bytes, base64 or hex. Required in production. */
  SECRETS_KEY: z.string().optional(),
  /** Where development and test keep their generated key (and other local files). */
  DATA_DIR: z.string().default('./data'),
};

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {}

/** Reads a 32-byte key written as 64 hex digits or as base64 (standard or URL-safe). */
export function parseSecretsKey(text: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) {
    const b = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === 32) return b;
  }
  throw new ConfigError('Invalid configuration:\n  SECRETS_KEY: must be 32 bytes written as 64 hex digits or as base64');
}

export class SecretBox {
  readonly kid: string;
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new ConfigError('Invalid configuration:\n  SECRETS_KEY: must be 32 bytes');
    this.kid = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  seal(plaintext: string, aad = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1.${this.kid}.${Buffer.concat([iv, ct, cipher.getAuthTag()]).toString('base64')}`;
  }

  open(sealed: string, aad = ''): string {
    const [version, kid, payload] = sealed.split('.');
    if (version !== 'v1' || !payload) throw new SecretBoxError('Not a sealed secret');
    if (kid !== this.kid) throw new SecretBoxError(`Sealed under another key (kid ${kid}, current ${this.kid})`);
    const raw = Buffer.from(payload, 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('Sealed secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('Sealed secret failed authentication (wrong key, row or field)');
    }
  }

  sealNullable(plaintext: string | null | undefined, aad = ''): string | null {
    return plaintext === null || plaintext === undefined ? null : this.seal(plaintext, aad);
  }
}

/**
 * The secret box of a service. `SECRETS_KEY` is required in production (a missing key stops the
 * service with a ConfigError). In development and test without it, a random key is generated
 * once and kept in `<DATA_DIR>/secrets.key` (mode 0600), with a warning; nothing is derived from
 * a constant, so no two installations share a key.
 */
export function loadSecretBox(
  config: { SECRETS_KEY?: string; DATA_DIR?: string; NODE_ENV?: string },
  log?: Pick<Logger, 'warn'>,
): SecretBox {
  if (config.SECRETS_KEY) return new SecretBox(parseSecretsKey(config.SECRETS_KEY));
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(
      'Invalid configuration:\n  SECRETS_KEY: required in production (32 bytes as 64 hex digits or base64; e.g. `openssl rand -base64 32`)',
    );
  }
  const file = resolve(join(config.DATA_DIR ?? './data', 'secrets.key'));
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
    log?.warn('SECRETS_KEY is not set: generated a development key; set SECRETS_KEY in production', { file });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  // Another process may have created the file an instant ago; wait for its content.
  for (let attempt = 0; ; attempt++) {
    const text = readFileSync(file, 'utf8');
    if (text.trim() !== '' || attempt > 50) {
      try {
        chmodSync(file, 0o600);
      } catch {
        /* not the owner: leave it */
      }
      return new SecretBox(parseSecretsKey(text));
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
}
