import { afterAll, describe, expect, it } from 'vitest';
import { defineService } from '@ledgerline/service-kit';
import { dropIsolation, isolation, startTestService } from '../support/stack.js';
import { probeService } from './probe-service.js';

/*
 * A service's long-lived resources (the sales printer and mailer, the settings secret box) are
 * built by the kit's `resources` hook: handed to every later hook, closed once at stop, and a
 * hook that throws stops the boot.
 */
const env = isolation();
afterAll(() => dropIsolation(env));

describe('service resources', () => {
  it('reach routes and onStart as deps.resources and are closed once, after the server stopped', async () => {
    const events: string[] = [];
    const def = defineService({
      ...probeService,
      name: 'resprobe',
      resources: () => ({
        greeting: 'hello',
        close: async () => {
          events.push('resources closed');
        },
      }),
      routes: (app, deps) => {
        app.get('/v1/greeting', (c) => c.json({ greeting: deps.resources.greeting }));
      },
      onStart: async (deps) => {
        events.push(`started with ${deps.resources.greeting}`);
        return async () => {
          events.push('onStart hook stopped');
        };
      },
    });
    const svc = await startTestService(def, env);
    const res = await fetch(`${svc.url}/v1/greeting`);
    expect(await res.json()).toEqual({ greeting: 'hello' });
    await svc.close();
    await svc.close();
    expect(events).toEqual(['started with hello', 'onStart hook stopped', 'resources closed']);
  });

  it('a resources hook that throws stops the boot with its error and runs no onStart', async () => {
    let started = false;
    const def = defineService({
      ...probeService,
      name: 'resprobefail',
      resources: () => {
        throw new Error('SECRETS_KEY is required in production');
      },
      onStart: async () => {
        started = true;
      },
    });
    await expect(startTestService(def, env)).rejects.toThrow('SECRETS_KEY is required in production');
    expect(started).toBe(false);
  });
});
