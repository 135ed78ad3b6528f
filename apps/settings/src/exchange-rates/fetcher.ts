import type { MikroORM } from '@mikro-orm/postgresql';
import { Pump, localClock, sqlRows, type Logger, type MetricsRegistry } from '@ledgerline/service-kit';
import { downloadPublished } from '../domain/published-file.js';
import { storeRateFile } from './rates.js';
import { RateFileError, parseRateFile, type RateFile } from './rate-files.js';

/*
 * The central bank's published file fetched once a working day after it is published
 * (`FX_RATES_URL`: the CNB's daily fixing or the ECB's eurofxref-daily.xml), into the table of
 * every organisation whose books are in that bank's currency. Each replica looks; one writes a
 * day (a transaction lock, and the day's row in exchange_rate_fetches), so a file is stored once
 * however many replicas fetched it. A failed fetch is tried again twice at once, then at the
 * next look.
 */

export interface FetcherOptions {
  url: string;
  /** How often a replica looks whether today's file is due. */
  pollMs: number;
  /** The bank's publication time on a working day, local to `timeZone` (HH:MM). */
  after: string;
  timeZone: string;
  timeoutMs: number;
  /** The clock (tests move it). */
  now?: () => Date;
}

const LOCK = "select pg_try_advisory_xact_lock(hashtextextended('settings:exchange-rate-fetch', 0)) as locked";

/** Whether a working day's file is due at `at`: Monday to Friday, at or after the publication time. */
export function fetchDue(at: Date, opts: Pick<FetcherOptions, 'after' | 'timeZone'>): string | null {
  const clock = localClock(at, opts.timeZone);
  if (clock.weekday === 0 || clock.weekday === 6 || clock.time < opts.after) return null;
  return clock.day;
}

export class ExchangeRateFetcher extends Pump {
  private readonly fetched: ReturnType<MetricsRegistry['counter']>;

  constructor(
    private readonly orm: MikroORM,
    private readonly opts: FetcherOptions,
    log: Logger,
    metrics: MetricsRegistry,
  ) {
    super({ idleMs: opts.pollMs, what: 'exchange-rate fetch' }, log);
    this.fetched = metrics.counter('exchange_rate_fetches_total', 'Fetches of the central bank’s rate file, by outcome');
  }

  protected async pass(): Promise<boolean> {
    const day = fetchDue((this.opts.now ?? (() => new Date()))(), this.opts);
    if (!day || (await this.done(day))) return false;
    const file = await this.download();
    if (!file) return false;
    const stored = await this.orm.em.fork().transactional(async (em) => {
      const [{ locked }] = await sqlRows<{ locked: boolean }>(em, LOCK);
      if (!locked) return false;
      const [seen] = await sqlRows(em, 'select 1 from exchange_rate_fetches where fetch_day = ?::date', [day]);
      if (seen) return false;
      const organisations = await sqlRows<{ id: number }>(em, 'select id from organisations where legal_currency = ?', [file.base]);
      for (const { id } of organisations) await storeRateFile({ em, orgId: Number(id) }, file);
      const latest = file.rates.map((r) => r.rate_date).sort().at(-1);
      await sqlRows(em, 'insert into exchange_rate_fetches (fetch_day, source, rate_date, organisations) values (?::date, ?, ?::date, ?)', [day, file.source, latest, organisations.length]);
      return true;
    });
    if (stored) {
      this.fetched.inc({ outcome: 'stored' });
      this.log.info('exchange rates fetched', { source: file.source, day, rates: file.rates.length });
    }
    return false;
  }

  private async done(day: string): Promise<boolean> {
    const [row] = await sqlRows(this.orm.em.fork(), 'select 1 from exchange_rate_fetches where fetch_day = ?::date', [day]);
    return Boolean(row);
  }

  /** The file, or null after three failed tries (the next look tries again). */
  private async download(): Promise<RateFile | null> {
    // a file that is not a rate file will not become one on the next try
    const got = await downloadPublished(this.opts.url, this.opts.timeoutMs, (bytes) => parseRateFile(new TextDecoder('utf-8').decode(bytes)), (err) => err instanceof RateFileError);
    if ('file' in got) return got.file;
    this.fetched.inc({ outcome: 'failed' });
    this.log.warn('exchange-rate fetch failed; trying again at the next look', { url: this.opts.url, err: String(got.error) });
    return null;
  }
}
