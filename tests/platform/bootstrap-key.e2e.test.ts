import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ConfigError, hasValidChecksum, startService } from '@ledgerline/service-kit';
import { settingsService } from '../../apps/settings/src/service.js';
import { dropIsolation, isolation, startStack } from '../support/stack.js';

/*
 * BOOTSTRAP_API_KEY (issue 18): a key in our format must carry the checksum the gateway checks,
 * or settings refuses to start, naming the key and how to make a valid one; a key of one's own
 * without our prefix works as it always did; `npm run -s make-api-key` prints a valid key.
 */

const root = path.resolve(import.meta.dirname, '../..');

describe('BOOTSTRAP_API_KEY', () => {
  it('an ak_ key without the checksum stops settings with a message naming the key and the fix', async () => {
    const env = isolation();
    try {
      const err = await startService(settingsService, { ...env, PORT: '0', BOOTSTRAP_API_KEY: 'ak_my_own_key_0123456789abcdef' }).then(
        async (svc) => {
          await svc.close();
          return null;
        },
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/BOOTSTRAP_API_KEY: starts with ak_.*checksum.*npm run -s make-api-key/);
    } finally {
      await dropIsolation(env);
    }
  });

  it('a key of one\'s own without the ak_ prefix works through the gateway, and make-api-key prints a valid key', async () => {
    const own = 'my-own-bootstrap-key-0123456789';
    const stack = await startStack({ env: { BOOTSTRAP_API_KEY: own } });
    try {
      expect((await stack.api('/v1/settings/organisation', { key: own })).status).toBe(200);
    } finally {
      await stack.close();
    }
    const made = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/make-api-key.ts')], { cwd: root, encoding: 'utf8' }).trim();
    expect(hasValidChecksum(made, 'ak')).toBe(true);
    const stack2 = await startStack({ env: { BOOTSTRAP_API_KEY: made } });
    try {
      expect((await stack2.api('/v1/settings/organisation', { key: made })).status).toBe(200);
    } finally {
      await stack2.close();
    }
  }, 60_000);
});
