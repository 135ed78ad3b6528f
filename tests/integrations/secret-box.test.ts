import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError, SecretBox, SecretBoxError, loadSecretBox, parseSecretsKey } from '@ledgerline/service-kit';

describe('secret box (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('round-trips, never repeats a ciphertext, and binds the value to its row and field', () => {
    const box = new SecretBox(key);
    const a = box.seal('hk_live_12345678', 'hosting:1:shop:api_key');
    const b = box.seal('hk_live_12345678', 'hosting:1:shop:api_key');
    expect(a).not.toBe(b);
    expect(a).not.toContain('hk_live');
    expect(box.open(a, 'hosting:1:shop:api_key')).toBe('hk_live_12345678');
    expect(() => box.open(a, 'hosting:2:shop:api_key')).toThrow(SecretBoxError);
    const tampered = a.slice(0, -4) + (a.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(() => box.open(tampered, 'hosting:1:shop:api_key')).toThrow(SecretBoxError);
    expect(() => new SecretBox(randomBytes(32)).open(a, 'hosting:1:shop:api_key')).toThrow(/another key/);
  });

  it('reads the key as hex or base64 and refuses anything but 32 bytes', () => {
    expect(parseSecretsKey(key.toString('hex')).equals(key)).toBe(true);
    expect(parseSecretsKey(key.toString('base64')).equals(key)).toBe(true);
    expect(parseSecretsKey(key.toString('base64url')).equals(key)).toBe(true);
    expect(() => parseSecretsKey('changeme')).toThrow(ConfigError);
    expect(() => parseSecretsKey(randomBytes(16).toString('base64'))).toThrow(ConfigError);
  });

  it('stops a production service without SECRETS_KEY with a clear configuration error', () => {
    expect(() => loadSecretBox({ NODE_ENV: 'production', DATA_DIR: tmpdir() })).toThrow(ConfigError);
    expect(() => loadSecretBox({ NODE_ENV: 'production' })).toThrow(/SECRETS_KEY: required in production/);
  });

  it('in development generates one random key under DATA_DIR with mode 0600, warns, and reuses it', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'ledgerline-sb-')), 'data');
    const warnings: string[] = [];
    const first = loadSecretBox({ NODE_ENV: 'development', DATA_DIR: dir }, { warn: (m) => warnings.push(m) });
    const file = join(dir, 'secrets.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(parseSecretsKey(readFileSync(file, 'utf8'))).toHaveLength(32);
    expect(warnings).toHaveLength(1);
    const second = loadSecretBox({ NODE_ENV: 'test', DATA_DIR: dir }, { warn: (m) => warnings.push(m) });
    expect(second.kid).toBe(first.kid);
    expect(warnings).toHaveLength(1);
    expect(second.open(first.seal('x', 'a'), 'a')).toBe('x');
    // A configured key wins over the file.
    expect(loadSecretBox({ NODE_ENV: 'production', SECRETS_KEY: key.toString('hex') }).kid).not.toBe(first.kid);
  });
});
