import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startSystem } from '../support/npm-start.js';
import { freePort } from '../support/ports.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * `npm ci && npm start` on a machine where no Postgres and no NATS answer (issue 72): the
 * missing ones are started from the binaries installed here, with their data in DATA_DIR, and
 * stopped with `npm start`; where they cannot be, one line says what to run and nothing restarts
 * in a loop. The "machine without them" is ports on which nothing listens.
 */

const root = path.resolve(import.meta.dirname, '../..');
const listening = (port: number) =>
  new Promise<boolean>((r) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      r(true);
    });
    s.on('error', () => r(false));
  });

describe('npm start where Postgres and NATS do not answer', () => {
  it('starts both from the installed binaries, serves, and stops them again', async () => {
    const [pgPort, natsPort] = [await freePort(), await freePort()];
    // not made beforehand: as root, the cluster's folder must be reachable by the postgres user
    const dataDir = path.join(os.tmpdir(), `ledgerline-start-${randomBytes(4).toString('hex')}`);
    const system = await startSystem('bare-machine', {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      DATA_DIR: dataDir,
    }, 150_000);
    try {
      expect(system.output()).toContain(`no Postgres answers at 127.0.0.1:${pgPort}: making a cluster of this checkout in ${dataDir}/postgres (initdb)`);
      expect(system.output()).toContain(`no NATS answers at 127.0.0.1:${natsPort}: starting`);
      const res = await fetch(`${system.gateway}/v1/sales/invoices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(invoiceBody()),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { total_amount: number }).total_amount).toBe(298);
    } finally {
      await system.stop();
    }
    // what it started, it stopped; the cluster stays for the next start
    expect(await listening(pgPort)).toBe(false);
    expect(await listening(natsPort)).toBe(false);
    expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    rmSync(dataDir, { recursive: true, force: true });
  }, 240_000);

  it('says in one line what to run when it cannot start one, and stops', async () => {
    const pgPort = await freePort();
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/start-all.ts')], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`, POSTGRES_BIN_DIR: '/nonexistent', PORT: String(await freePort()) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((r) => proc.once('exit', r));
    expect(code).toBe(1);
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `npm start: Postgres does not answer at 127.0.0.1:${pgPort} and none is installed here: install it (Debian/Ubuntu: \`sudo apt install postgresql\`) or run one (\`docker run -d -p ${pgPort}:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15\`), then \`npm start\` again`,
    );
  }, 60_000);
});
