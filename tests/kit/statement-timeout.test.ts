import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_HEADERS, sqlMigration, sqlRows, type RunningService } from '@ledgerline/service-kit';
import { dropIsolation, isolation, startTestService, type ApiResponse } from '../support/stack.js';
import { probeService } from './probe-service.js';

/*
 * A runaway statement is canceled by the database (decision 160): every pooled session runs with
 * `statement_timeout` (`DB_STATEMENT_TIMEOUT_MS`), so a query that would hold a connection and a
 * core long after the gateway answered 504 is canceled, its transaction rolled back, the request
 * answered 503 with nothing written. Migrations are not bounded: one that takes longer than the
 * timeout (an index built over a large table) still applies.
 */
const env = isolation();
let svc: RunningService;
const ORG = 12;

const slow = (text: string, seconds: number) =>
  fetch(`${svc.url}/v1/notes/slow`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.orgId]: String(ORG), [INTERNAL_HEADERS.scopes]: 'admin', 'content-type': 'application/json' },
    body: JSON.stringify({ text, seconds }),
  }) as Promise<ApiResponse>;
const notesWith = async (text: string) => (await sqlRows<{ n: number }>(svc.deps.orm.em.fork(), 'select count(*)::int as n from notes where text = ?', [text]))[0].n;

beforeAll(async () => {
  // a migration of 0.6 s under a timeout of 0.3 s
  const slowMigration = sqlMigration('probe_0099_slow', 'select pg_sleep(0.6);');
  svc = await startTestService({ ...probeService, name: 'stmtprobe', migrations: [...probeService.migrations, slowMigration] }, { ...env, DB_STATEMENT_TIMEOUT_MS: '300' });
});
afterAll(async () => {
  await svc?.close();
  await dropIsolation(env);
});

describe('the statement timeout', () => {
  it('let the slow migration apply', async () => {
    const [row] = await sqlRows<{ n: number }>(svc.deps.orm.em.fork(), "select count(*)::int as n from kit_migrations where name = 'probe_0099_slow'");
    expect(row.n).toBe(1);
  });

  it('cancels a statement running past it: 503, the request rolled back, and the next one served', async () => {
    const res = await slow('too slow', 2);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    const problem = await res.json();
    expect(problem).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(problem.detail).toMatch(/canceled the statement; nothing was written/);
    expect(await notesWith('too slow')).toBe(0);

    expect((await slow('quick enough', 0.05)).status).toBe(200);
    expect(await notesWith('quick enough')).toBe(1);
  });

  it('holds in the pooled sessions', async () => {
    const timeouts = await Promise.all(Array.from({ length: 4 }, async () => (await sqlRows<{ t: string }>(svc.deps.orm.em.fork(), "select current_setting('statement_timeout') as t"))[0].t));
    expect(new Set(timeouts)).toEqual(new Set(['300ms']));
  });
});
