import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/*
 * The previous release of the platform, checked out beside the working tree, so a test can run
 * its services next to HEAD's: the release tag before HEAD (`PREVIOUS_RELEASE` names another),
 * in a temporary git worktree with the packages its lockfile asks for.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/**
 * The previous release: the newest `vX.Y.Z` tag in HEAD's history that is not HEAD itself, else
 * (a clone without tags, as CI's may be) the newest commit before HEAD whose subject is
 * `Release X.Y.Z`, the commit every release is cut as.
 */
export function previousReleaseTag(): string {
  if (process.env.PREVIOUS_RELEASE) return process.env.PREVIOUS_RELEASE;
  const head = git('rev-parse', 'HEAD');
  const tags = git('tag', '--merged', 'HEAD', '--list', 'v[0-9]*.[0-9]*.[0-9]*', '--sort=-v:refname').split('\n').filter(Boolean);
  const tagged = tags.find((t) => git('rev-list', '-n', '1', t) !== head);
  if (tagged) return tagged;
  const commits = git('log', '--format=%H', '-E', '--grep=^Release [0-9]+\\.[0-9]+\\.[0-9]+', 'HEAD').split('\n').filter(Boolean);
  const committed = commits.find((c) => c !== head);
  if (!committed) throw new Error('no release before HEAD: no vX.Y.Z tag and no "Release X.Y.Z" commit in its history (a shallow clone? git fetch --unshallow --tags)');
  return committed;
}

export interface PreviousRelease {
  tag: string;
  dir: string;
  /** Starts one of its services (`apps/<name>/src/main.ts`) with `env`; resolves once it answers /readyz. */
  start: (name: string, env: Record<string, string>) => Promise<ChildProcess>;
  remove: () => void;
}

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
}
interface Lockfile {
  packages: Record<string, LockEntry>;
}

/**
 * Whether the tree `installed` (the working tree's lockfile, installed by `npm ci`) holds every
 * package `wanted` installs, at the same path, version, source and checksum, the release's own
 * workspaces linked to the same folders. Packages HEAD added beside them are never required by the
 * release's code, except those nested inside a package the release has: the release's copy of that
 * package would then find HEAD's nested one, so such a tree does not hold the release's.
 */
export function installedTreeHolds(installed: Lockfile, wanted: Lockfile): boolean {
  for (const [key, entry] of Object.entries(wanted.packages)) {
    // "" and the workspaces' folders are the release's own checkout
    if (!key.startsWith('node_modules/')) {
      if (key === '' || !key.includes('/node_modules/')) continue;
      return false; // a workspace's own nested packages: the working tree's are not linked there
    }
    const have = installed.packages[key];
    if (!have) return false;
    for (const field of ['version', 'resolved', 'integrity', 'link'] as const) if (have[field] !== entry[field]) return false;
  }
  for (const key of Object.keys(installed.packages)) {
    const nested = key.lastIndexOf('/node_modules/');
    if (key.startsWith('node_modules/') && nested > 0 && wanted.packages[key.slice(0, nested)] && !wanted.packages[key]) return false;
  }
  return true;
}

export async function checkOutPreviousRelease(): Promise<PreviousRelease> {
  const tag = previousReleaseTag();
  const dir = fs.mkdtempSync(path.join(tmpdir(), `ledgerline-${tag}-`));
  git('worktree', 'add', '--detach', '--force', dir, tag);
  const lockOf = (d: string): Lockfile => JSON.parse(fs.readFileSync(path.join(d, 'package-lock.json'), 'utf8'));
  const release = lockOf(dir);
  if (installedTreeHolds(lockOf(ROOT), release)) {
    // every package the release's lockfile installs is in the working tree's node_modules at the
    // same path and version (HEAD's tree grows by additions): link those rather than install 500
    // packages again (23 s of the suite on two cores), and the release's own workspaces as its
    // lockfile links them
    const modules = path.join(dir, 'node_modules');
    fs.mkdirSync(path.join(modules, '@ledgerline'), { recursive: true });
    for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
      if (entry !== '@ledgerline' && entry !== '.cache') fs.symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
    }
    for (const [key, entry] of Object.entries(release.packages)) {
      if (key.startsWith('node_modules/@ledgerline/') && entry.link && entry.resolved) {
        fs.symlinkSync(path.relative(path.dirname(path.join(dir, key)), path.join(dir, entry.resolved)), path.join(dir, key));
      }
    }
  } else {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, stdio: 'inherit', timeout: 300_000 });
  }
  const children: ChildProcess[] = [];
  return {
    tag,
    dir,
    start: async (name, env) => {
      const child = spawn(process.execPath, ['--import', 'tsx', `apps/${name}/src/main.ts`], {
        cwd: dir,
        env: { ...process.env, ...env, NODE_ENV: 'production' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      const until = Date.now() + 60_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`${tag} ${name} exited with ${child.exitCode}`);
        const ready = await fetch(`http://127.0.0.1:${env.PORT}/readyz`).then((r) => r.ok, () => false);
        if (ready) return child;
        if (Date.now() > until) throw new Error(`${tag} ${name} was not ready within 60 s`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    remove: () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      git('worktree', 'remove', '--force', dir);
    },
  };
}

/** Stops a service process the way an orchestrator does (SIGTERM), and waits for it to be gone. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([gone, new Promise((r) => setTimeout(r, 20_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
