/**
 * What `npm run backup` writes and `npm run restore` reads: the manifest of a backup folder, and
 * how both run the Postgres programs.
 */
import { spawn } from 'node:child_process';

/** The services that own a database, each `<DATABASE_PREFIX><name>`. */
export const SERVICE_NAMES = ['settings', 'sales', 'purchase', 'finance', 'accounting'] as const;

export interface BackupManifest {
  format: 1;
  started_at: string;
  /** The moment the databases of the base backup are consistent as of: a restore goes there or later. */
  base_backup_ended_at: string;
  database_prefix: string;
  databases: string[];
  server_version: string;
  /** The WAL archive `--follow` kept: a restore may go to any moment up to `until` (null while it still follows). */
  wal: { dir: string; from: string; until: string | null } | null;
  subject_prefix: string;
  /** Each stream's export: messages written, and the stream's first and last sequence when it began. */
  streams: Record<string, { messages: number; first_seq: number; last_seq: number }>;
}

/** Runs a program to its end (at most `timeoutMs`); rejects with what it wrote to stderr when it fails. */
export function runTool(program: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 3_600_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    p.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    const timer = setTimeout(() => p.kill('SIGTERM'), timeoutMs);
    p.once('error', reject);
    p.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${program.split('/').pop()} ${code === null ? `ended by ${signal}` : `exited ${code}`}: ${stderr.trim()}`));
    });
  });
}
