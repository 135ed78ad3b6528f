import type { MikroORM } from '@mikro-orm/postgresql';
import { RepoRateFileError, parseCnbRepoHistory } from '@ledgerline/core/cnb-repo-rates';
import { Pump, sqlRows, type Logger, type MetricsRegistry } from '@ledgerline/service-kit';
import { downloadPublished } from '../domain/published-file.js';
import { pragueToday, storeRepoHistory } from './repo-rates.js';

/*
 * The bank's repo-rate history fetched once a day (`REPO_RATES_URL`: the CNB's
 * vyvoj_repo_historie.txt) into every organisation's history, which is then known through that
 * day. Each replica looks; one stores a day (a transaction lock, and the day's row in
 * repo_rate_fetches). A failed fetch is tried again twice at once, then at the next look; a file
 * that is not the history is refused whole and changes nothing.
 */

export interface RepoRateFetcherOptions {
  url: string;
  pollMs: number;
  timeoutMs: number;
  /** The clock (tests move it). */
  now?: () => Date;
}

const LOCK = "select pg_try_advisory_xact_lock(hashtextextended('settings:repo-rate-fetch', 0)) as locked";
const MAX_BYTES = 256 * 1024;

/** The bank's file as its changes; one that is not the history (or far larger than it) is a RepoRateFileError. */
function parseHistory(bytes: Uint8Array) {
  if (bytes.length > MAX_BYTES) throw new RepoRateFileError([{ line: 0, message: `larger than ${MAX_BYTES} bytes` }]);
  return parseCnbRepoHistory(new TextDecoder('utf-8').decode(bytes));
}

export class RepoRateFetcher extends Pump {
  private readonly fetched: ReturnType<MetricsRegistry['counter']>;

  constructor(
    private readonly orm: MikroORM,
    private readonly opts: RepoRateFetcherOptions,
    log: Logger,
    metrics: MetricsRegistry,
  ) {
    super({ idleMs: opts.pollMs, what: 'repo-rate fetch' }, log);
    this.fetched = metrics.counter('repo_rate_fetches_total', 'Fetches of the CNB repo-rate history, by outcome');
  }

  protected async pass(): Promise<boolean> {
    const day = pragueToday((this.opts.now ?? (() => new Date()))());
    const [seen] = await sqlRows(this.orm.em.fork(), 'select 1 from repo_rate_fetches where fetch_day = ?::date', [day]);
    if (seen) return false;
    const changes = await this.download();
    if (!changes) return false;
    const stored = await this.orm.em.fork().transactional(async (em) => {
      const [{ locked }] = await sqlRows<{ locked: boolean }>(em, LOCK);
      if (!locked) return null;
      const [done] = await sqlRows(em, 'select 1 from repo_rate_fetches where fetch_day = ?::date', [day]);
      if (done) return null;
      const organisations = await sqlRows<{ id: number }>(em, 'select id from organisations order by id');
      for (const { id } of organisations) await storeRepoHistory({ em, orgId: Number(id) }, changes, day);
      await sqlRows(em, 'insert into repo_rate_fetches (fetch_day, changes, organisations) values (?::date, ?, ?)', [day, changes.length, organisations.length]);
      return organisations.length;
    });
    if (stored !== null) {
      this.fetched.inc({ outcome: 'stored' });
      this.log.info('repo rates fetched', { day, changes: changes.length, organisations: stored });
    }
    return false;
  }

  /** The history's changes, or null after three failed tries (the next look tries again). */
  private async download(): Promise<Array<{ valid_from: string; rate: string }> | null> {
    const got = await downloadPublished(this.opts.url, this.opts.timeoutMs, parseHistory, (err) => err instanceof RepoRateFileError);
    if ('file' in got) return got.file;
    this.fetched.inc({ outcome: 'failed' });
    this.log.warn('repo-rate fetch failed; trying again at the next look', { url: this.opts.url, err: String(got.error) });
    return null;
  }
}
