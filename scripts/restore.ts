/**
 * `npm run restore -- --from <backup folder> --prefix <new DATABASE_PREFIX> [--at <moment>]
 * [--services sales,accounting,…]`: the services' databases as they were at a moment, restored
 * into fresh databases (`<prefix><service>`) on the server of DATABASE_URL, while the system
 * goes on writing to its own (docs/operations.md, "Backup and restore").
 *
 * 1. The base backup is unpacked into a Postgres cluster of its own (a temporary folder, a free
 *    loopback port), which replays the followed WAL up to `--at` (every transaction committed by
 *    then, `recovery_target_time`) and is promoted; without `--at`, to the end of what was
 *    backed up.
 * 2. Each chosen service's database is copied from it into a new database (`pg_dump` into
 *    `pg_restore`, one transaction each); an existing database is never written over.
 * 3. Every event still kept in a restored outbox is marked to be published again. Started on the
 *    restored databases (and a NATS_SUBJECT_PREFIX of their own), the services publish them, and
 *    each consumer applies what its restored database had not yet seen (the others are
 *    duplicates in its inbox): the ledger re-derives what the restored documents say, also when
 *    the services were restored to different moments.
 * 4. The temporary cluster is stopped and removed. The time it all took is printed (RTO).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { baseConfigSchema, loadConfig } from '@ledgerline/service-kit';
import { connectWritable } from '@ledgerline/service-kit/db/connect-writable';
import { withDatabase } from '@ledgerline/service-kit/db/database-url';
import { asPostgres, MissingInfrastructure, postgresProgram, postgresUser } from './postgres-programs.js';
import { runTool, SERVICE_NAMES, type BackupManifest } from './backup-format.js';

const say = (l: string) => process.stdout.write(`${l}\n`);

/** Recovery found no commit after the moment asked for: everything followed is before it. */
class TargetPastWal extends Error {}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

interface Options {
  from: string;
  prefix: string;
  at: Date | null;
  services: string[];
}

function options(): Options {
  const { values } = parseArgs({ options: { from: { type: 'string' }, prefix: { type: 'string' }, at: { type: 'string' }, services: { type: 'string' } } });
  const usage = 'usage: npm run restore -- --from <backup folder> --prefix <new DATABASE_PREFIX> [--at <ISO 8601 moment>] [--services settings,sales,…]';
  if (!values.from || !values.prefix) throw new MissingInfrastructure(usage);
  if (!/^[a-z0-9_]+$/.test(values.prefix)) throw new MissingInfrastructure('--prefix: lower-case letters, digits and _ only, as DATABASE_PREFIX');
  const at = values.at ? new Date(values.at) : null;
  if (at && (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(values.at!) || Number.isNaN(at.getTime()))) {
    throw new MissingInfrastructure('--at: a moment with its offset, e.g. 2026-12-02T09:15:00Z');
  }
  const services = values.services ? values.services.split(',').map((s) => s.trim()) : [...SERVICE_NAMES];
  const unknown = services.filter((s) => !(SERVICE_NAMES as readonly string[]).includes(s));
  if (unknown.length || !services.length) throw new MissingInfrastructure(`--services: some of ${SERVICE_NAMES.join(', ')} (not ${unknown.join(', ')})`);
  return { from: path.resolve(values.from), prefix: values.prefix, at, services };
}

function manifestOf(dir: string, at: Date | null): BackupManifest {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  } catch {
    throw new MissingInfrastructure(`${dir} holds no backup (manifest.json): make one with npm run backup`);
  }
  if (at) {
    if (at < new Date(manifest.base_backup_ended_at)) throw new MissingInfrastructure(`--at ${at.toISOString()} is before the backup was consistent (${manifest.base_backup_ended_at}): use an earlier backup`);
    if (!manifest.wal) throw new MissingInfrastructure(`this backup has no WAL after ${manifest.base_backup_ended_at} (made without --follow): restore without --at`);
    if (manifest.wal.until && at > new Date(manifest.wal.until)) throw new MissingInfrastructure(`--at ${at.toISOString()} is after the WAL followed ends (${manifest.wal.until})`);
  }
  return manifest;
}

/** The base backup unpacked into a cluster of its own, recovered to `at` and promoted; stopped and removed by `stop`. */
async function recoveredCluster(dir: string, manifest: BackupManifest, at: Date | null) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'ledgerline-restore-'));
  const data = path.join(root, 'data');
  mkdirSync(path.join(data, 'pg_wal'), { recursive: true });
  await runTool('tar', ['-xzf', path.join(dir, 'base', 'base.tar.gz'), '-C', data]);
  await runTool('tar', ['-xzf', path.join(dir, 'base', 'pg_wal.tar.gz'), '-C', path.join(data, 'pg_wal')]);
  const port = await freePort();
  // the server's own configuration may live outside its data folder (Debian's /etc/postgresql): this cluster has its own
  const settings: Record<string, string | number> = {
    port,
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${root}'`,
    max_connections: 50,
    synchronous_standby_names: "''",
    archive_mode: 'off',
    hot_standby: 'off',
  };
  const owner = postgresUser();
  if (manifest.wal) {
    let wal = path.join(dir, manifest.wal.dir);
    if (owner) {
      // as root the server runs as postgres, which may not read the backup's folder: it gets a copy of its own
      await runTool('cp', ['-r', wal, path.join(root, 'wal')]);
      wal = path.join(root, 'wal');
    }
    // the segment pg_receivewal was writing when stopped is kept as .partial: recovery reads it under its own name
    settings.restore_command = `'cp "${wal}/%f" "%p" 2>/dev/null || cp "${wal}/%f.partial" "%p"'`;
    settings.recovery_target_action = "'promote'";
    if (at) {
      // as the server reads a timestamp: '2026-12-02 08:43:19.620+00'
      settings.recovery_target_time = `'${at.toISOString().replace('T', ' ').replace('Z', '+00')}'`;
      settings.recovery_target_inclusive = 'on';
    }
    writeFileSync(path.join(data, 'recovery.signal'), '');
  }
  writeFileSync(path.join(data, 'postgresql.conf'), `${Object.entries(settings).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`);
  writeFileSync(path.join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  writeFileSync(path.join(data, 'postgresql.auto.conf'), '');
  if (owner) await runTool('chown', ['-R', `${owner.uid}:${owner.gid}`, root]);
  chmodSync(data, 0o700); // the server refuses a data folder others may read
  const [cmd, args] = asPostgres(postgresProgram('postgres'), ['-D', data]);
  const proc = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let log = '';
  proc.stderr!.on('data', (d) => (log = (log + d).slice(-4000)));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      process.kill(-proc.pid!, 'SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000).unref())]);
    }
    rmSync(root, { recursive: true, force: true });
  };
  // until recovery has reached its target and the server takes writes (bounded: a huge WAL takes long, a wrong one fails)
  const until = Date.now() + 3_600_000;
  for (;;) {
    if (proc.exitCode !== null) {
      await stop();
      // the WAL ends before the moment: no transaction committed after it was followed (an idle system)
      if (log.includes('recovery ended before configured recovery target was reached')) throw new TargetPastWal();
      throw new Error(`the restored cluster stopped during recovery: ${log.trim().split('\n').slice(-3).join(' | ')}`);
    }
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    const promoted = await c
      .connect()
      .then(() => c.query<{ r: boolean }>('select pg_is_in_recovery() as r'))
      .then((res) => !res.rows[0].r)
      .catch(() => false)
      .finally(() => c.end().catch(() => undefined));
    if (promoted) break;
    if (Date.now() > until) {
      await stop();
      throw new Error('the restored cluster did not finish recovery within an hour');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // what recovery replayed last: the moment the restored databases stand at
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const replayed = (await c.query<{ t: Date | null }>('select pg_last_xact_replay_timestamp() as t')).rows[0].t;
  await c.end();
  say(`recovered: the last transaction replayed was committed at ${replayed?.toISOString() ?? 'the end of the base backup'}`);
  if (process.env.RESTORE_DEBUG) process.stderr.write(log);
  return { url, stop };
}

async function main(): Promise<void> {
  // from the process's start: loading the programs is part of the time to recover
  const started = Date.now() - process.uptime() * 1000;
  const opts = options();
  const manifest = manifestOf(opts.from, opts.at);
  const config = loadConfig(baseConfigSchema, process.env);
  const target = await connectWritable(config.DATABASE_URL);
  const names = opts.services.map((s) => ({ service: s, from: `${manifest.database_prefix}${s}`, to: `${opts.prefix}${s}` }));
  try {
    const { rows } = await target.query<{ datname: string }>('select datname from pg_database where datname = any($1)', [names.map((n) => n.to)]);
    if (rows.length) throw new MissingInfrastructure(`${rows.map((r) => r.datname).join(', ')} exist already: a restore writes into fresh databases only (choose another --prefix)`);
    const missing = names.filter((n) => !manifest.databases.includes(n.from));
    if (missing.length) throw new MissingInfrastructure(`the backup holds no database ${missing.map((n) => n.from).join(', ')}`);

    say(`recovering the base backup of ${manifest.base_backup_ended_at}${opts.at ? ` to ${opts.at.toISOString()}` : ' to the end of what was backed up'}`);
    const cluster = await recoveredCluster(opts.from, manifest, opts.at).catch((err) => {
      if (!(err instanceof TargetPastWal)) throw err;
      // nothing was committed between the last WAL record and the moment: all of it is the state then
      say('no transaction was committed after that moment in the WAL followed: recovering all of it');
      return recoveredCluster(opts.from, manifest, null);
    });
    try {
      for (const n of names) {
        await target.query(`create database "${n.to}"`);
        const source = withDatabase(cluster.url, n.from);
        const into = withDatabase(config.DATABASE_URL, n.to);
        // libpq reads every host of a multi-host URL and finds the one that takes writes
        await pipeTools(['pg_dump', ['-Fc', '-d', source]], ['pg_restore', ['--no-owner', '--single-transaction', '--exit-on-error', '-d', `${into}${into.includes('?') ? '&' : '?'}target_session_attrs=read-write`]]);
        // published again when the services start on it: each consumer applies what it had not seen yet
        const db = await connectWritable(into);
        try {
          const { rowCount } = await db.query('update kit_outbox set sent_at = null where sent_at is not null');
          say(`${n.from} → ${n.to} (${rowCount ?? 0} kept events to publish again)`);
        } finally {
          await db.end();
        }
      }
    } finally {
      await cluster.stop();
    }
  } finally {
    await target.end();
  }
  say(`restored ${opts.services.join(', ')} to ${opts.at?.toISOString() ?? 'the end of the backup'} into ${opts.prefix}* in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  say(`start the services with DATABASE_PREFIX=${opts.prefix} and a NATS_SUBJECT_PREFIX of their own (fresh streams)`);
}

/** `a | b`: the first program's output into the second; rejects with whichever failed. */
async function pipeTools(a: [string, string[]], b: [string, string[]]): Promise<void> {
  const first = spawn(postgresProgram(a[0]), a[1], { stdio: ['ignore', 'pipe', 'pipe'] });
  const second = spawn(postgresProgram(b[0]), b[1], { stdio: ['pipe', 'ignore', 'pipe'] });
  first.stdout!.pipe(second.stdin!);
  const ended = (p: ChildProcess, name: string) =>
    new Promise<void>((resolve, reject) => {
      let stderr = '';
      p.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
      p.once('error', reject);
      p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${name} exited ${code}: ${stderr.trim()}`))));
    });
  await Promise.all([ended(first, a[0]), ended(second, b[0])]);
}

main().catch((err) => {
  process.stderr.write(`npm run restore: ${err instanceof MissingInfrastructure ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});
