/**
 * The machine's Postgres programs (initdb, postgres, pg_basebackup, pg_dump, …) for the scripts
 * that run them: `npm start` where no Postgres answers, `npm run backup` and `npm run restore`.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** What is missing to go on, said in one line to whoever ran the script. */
export class MissingInfrastructure extends Error {}

/** An installed Postgres program: Debian keeps them in /usr/lib/postgresql/<major>/bin, off the PATH. */
export function findPostgresProgram(name: string, env: NodeJS.ProcessEnv): string | null {
  const dirs: string[] = [];
  if (env.POSTGRES_BIN_DIR) dirs.push(env.POSTGRES_BIN_DIR);
  else {
    const root = '/usr/lib/postgresql';
    if (existsSync(root)) dirs.push(...readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a)).map((m) => path.join(root, m, 'bin')));
    dirs.push(...(env.PATH ?? '').split(':').filter(Boolean));
  }
  for (const d of dirs) if (existsSync(path.join(d, name))) return path.join(d, name);
  return null;
}

/** A program that must exist: its path, or MissingInfrastructure naming it. */
export function postgresProgram(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const found = findPostgresProgram(name, env);
  if (!found) throw new MissingInfrastructure(`${name} (PostgreSQL's client programs) is not installed here: install them (Debian/Ubuntu: \`sudo apt install postgresql\`) or set POSTGRES_BIN_DIR`);
  return found;
}

/** Postgres refuses to run as root; as root, the cluster belongs to the `postgres` user when there is one. */
export function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new MissingInfrastructure('Postgres cannot run as root and there is no `postgres` user: run `npm start` as another user, or set DATABASE_URL to a running Postgres');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export function asPostgres(program: string, args: string[]): [string, string[]] {
  return postgresUser() ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
}
