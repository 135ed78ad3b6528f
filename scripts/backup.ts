/**
 * `npm run backup -- [--dir <folder>] [--follow]`: a consistent backup of every service's
 * database and of the event streams, taken while the system runs (docs/operations.md, "Backup
 * and restore").
 *
 * - The databases: a base backup of the Postgres cluster (`pg_basebackup`, compressed tar, with
 *   the WAL it needs), so every service's database is as of one moment, the end of the backup.
 * - `--follow`: the cluster's WAL streamed into `<folder>/wal` (`pg_receivewal`), from before the
 *   base backup until stopped (Ctrl-C, SIGTERM): a restore can then go to any moment in between
 *   (`npm run restore -- --at`).
 * - The streams: every message of the deployment's streams, in order, as JSON lines
 *   (`<folder>/streams/<STREAM>.jsonl`), up to the last one when the export began.
 * - `manifest.json`: what is where, the prefixes, and when.
 *
 * Configured as the services are: DATABASE_URL (the server that takes writes among its hosts),
 * DATABASE_PREFIX, NATS_URL, NATS_SUBJECT_PREFIX. Kubernetes: CloudNativePG's own backups
 * apply instead (deploy/k8s/postgres/cluster.yaml).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { once } from 'node:events';
import { STREAMS, type StreamName } from '@ledgerline/contracts';
import { baseConfigSchema, createLogger, EventBus, loadConfig } from '@ledgerline/service-kit';
import { connectWritable } from '@ledgerline/service-kit/db/connect-writable';
import { hostsToTry, singleHostUrl, withDatabase } from '@ledgerline/service-kit/db/database-url';
import { MissingInfrastructure, postgresProgram } from './postgres-programs.js';
import { runTool, SERVICE_NAMES, type BackupManifest } from './backup-format.js';

const say = (l: string) => process.stdout.write(`${l}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, follow: { type: 'boolean' } } });
  const config = loadConfig(baseConfigSchema, process.env);
  const started = new Date();
  const dir = path.resolve(values.dir ?? path.join('backups', started.toISOString().replace(/[:.]/g, '-')));
  if (existsSync(dir) && readdirSync(dir).length) throw new MissingInfrastructure(`${dir} is not empty: a backup goes into a folder of its own`);
  mkdirSync(dir, { recursive: true });

  // the server that takes writes now, and the services' databases on it
  const admin = await connectWritable(config.DATABASE_URL);
  const server = hostsToTry(config.DATABASE_URL)[0];
  const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where datname = any($1) order by datname', [SERVICE_NAMES.map((s) => `${config.DATABASE_PREFIX}${s}`)]);
  const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0].server_version;
  await admin.end();
  const url = new URL(singleHostUrl(withDatabase(config.DATABASE_URL, 'postgres'), server));
  const connection = ['-h', server.host, '-p', String(server.port), '-U', decodeURIComponent(url.username || 'postgres')];
  const env = { ...process.env, ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}) };

  let follower: ChildProcess | null = null;
  if (values.follow) {
    // started first, so the archive holds every WAL record from before the base backup began
    const wal = path.join(dir, 'wal');
    mkdirSync(wal);
    follower = spawn(postgresProgram('pg_receivewal'), [...connection, '-D', wal, '--synchronous', '--no-password'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    const until = Date.now() + 30_000;
    while (!readdirSync(wal).length) {
      if (follower.exitCode !== null || Date.now() > until) throw new Error('pg_receivewal did not start streaming (does the server allow replication connections from here?)');
      await new Promise((r) => setTimeout(r, 100));
    }
    say(`following the WAL into ${wal}`);
  }

  say(`base backup of ${server.host}:${server.port} (${rows.map((r) => r.datname).join(', ')}) into ${path.join(dir, 'base')}`);
  await runTool(postgresProgram('pg_basebackup'), [...connection, '-D', path.join(dir, 'base'), '-Ft', '-z', '-X', 'stream', '-c', 'fast', '-l', `ledgerline ${started.toISOString()}`, '--no-password'], env);
  const baseEnded = new Date();

  const streams = await exportStreams(config, path.join(dir, 'streams'));
  const manifest: BackupManifest = {
    format: 1,
    started_at: started.toISOString(),
    base_backup_ended_at: baseEnded.toISOString(),
    database_prefix: config.DATABASE_PREFIX,
    databases: rows.map((r) => r.datname),
    server_version: version,
    wal: values.follow ? { dir: 'wal', from: started.toISOString(), until: null } : null,
    subject_prefix: config.NATS_SUBJECT_PREFIX,
    streams,
  };
  const write = () => writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  write();
  say(`backup in ${dir}: a restore can go to ${baseEnded.toISOString()}${values.follow ? ' or any moment after it while this runs' : ''}`);

  if (follower) {
    const f = follower;
    say('following the WAL until stopped (Ctrl-C)');
    await new Promise<void>((resolve) => {
      const stop = () => {
        f.kill('SIGTERM'); // pg_receivewal flushes what it has and ends
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      f.once('exit', () => resolve());
    });
    if (f.exitCode === null) await once(f, 'exit');
    manifest.wal!.until = new Date().toISOString();
    write();
    say(`WAL followed until ${manifest.wal!.until}`);
  }
}

/** Every message of each of the deployment's streams, in order, up to the last one when its export began. */
async function exportStreams(config: ReturnType<typeof loadConfig<typeof baseConfigSchema>>, dir: string): Promise<BackupManifest['streams']> {
  mkdirSync(dir);
  const bus = await EventBus.connect(config, 'ledgerline-backup', createLogger('backup', 'error'));
  const out: BackupManifest['streams'] = {};
  try {
    for (const stream of Object.keys(STREAMS) as StreamName[]) {
      const name = bus.streamName(stream);
      const info = await bus.jsm.streams.info(name).catch(() => null);
      if (!info) continue;
      const { first_seq: first, last_seq: last, messages } = info.state;
      const file = createWriteStream(path.join(dir, `${name}.jsonl`));
      let written = 0;
      if (messages > 0) {
        const consumer = await bus.js.consumers.get(name, { opt_start_seq: first });
        const iter = await consumer.consume({ max_messages: 500 });
        for await (const m of iter) {
          const headers: Record<string, string[]> = {};
          for (const k of m.headers?.keys() ?? []) headers[k] = m.headers!.values(k);
          const line = { seq: m.seq, subject: m.subject, time: m.time.toISOString(), headers, data: Buffer.from(m.data).toString('base64') };
          if (!file.write(`${JSON.stringify(line)}\n`)) await once(file, 'drain');
          written++;
          if (m.seq >= last) break;
        }
        await iter.close();
      }
      file.end();
      await once(file, 'finish');
      out[name] = { messages: written, first_seq: first, last_seq: last };
    }
  } finally {
    await bus.close();
  }
  return out;
}

main().catch((err) => {
  process.stderr.write(`npm run backup: ${err instanceof MissingInfrastructure ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});
