import type { EntityManager } from '@mikro-orm/postgresql';
import { CNB_REPO_RATE_HISTORY, CNB_REPO_RATES_KNOWN_THROUGH, RepoRateFileError, parseCnbRepoHistory } from '@ledgerline/core/cnb-repo-rates';
import type { RepoRateChange, RepoRateHistory, RepoRateImport, RepoRateRequest, RepoRatesAnswer } from '@ledgerline/contracts';
import { BusinessRuleError, Dec, ValidationError, sqlRows, type TenantScope } from '@ledgerline/service-kit';
import { readTextBody } from '../exchange-rates/rates.js';

/*
 * An organisation's history of the CNB two-week repo rate (issue 70): the one the code ships
 * with, and over it what the organisation imported from the bank's file, what settings fetched
 * (REPO_RATES_URL) and what it set by hand. Statutory late-payment interest (sales' reminders)
 * asks for it (`rpc.settings.repo_rates`) and reads the rate of a half-year's last day, which it
 * computes only when the history is known through that day.
 */

const MAX_FILE_BYTES = 256 * 1024;
/** Today in Prague, where the bank publishes. */
export const pragueToday = (now: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Prague' }).format(now);

interface OwnRow {
  valid_from: string;
  rate: string;
  source: 'cnb_file' | 'manual';
}

async function own(scope: TenantScope): Promise<{ rows: OwnRow[]; knownThrough: string | null }> {
  const rows = await sqlRows<OwnRow>(scope.em, `select to_char(valid_from, 'YYYY-MM-DD') as valid_from, rate::text as rate, source from repo_rates where org_id = ? order by valid_from`, [scope.orgId]);
  const [coverage] = await sqlRows<{ known_through: string }>(scope.em, `select to_char(known_through, 'YYYY-MM-DD') as known_through from repo_rate_coverage where org_id = ?`, [scope.orgId]);
  return { rows, knownThrough: coverage?.known_through ?? null };
}

/** The shipped history with the organisation's own changes over it (its own wins on a day both name), and the later of the two days they are known through. */
async function merged(scope: TenantScope): Promise<{ changes: RepoRateChange[]; knownThrough: string }> {
  const { rows, knownThrough } = await own(scope);
  const byDay = new Map<string, RepoRateChange>();
  for (const c of CNB_REPO_RATE_HISTORY) byDay.set(c.valid_from, { valid_from: c.valid_from, rate: Number(c.rate), source: 'shipped', note: c.source });
  for (const r of rows) byDay.set(r.valid_from, { valid_from: r.valid_from, rate: new Dec(r.rate).toNumber(), source: r.source, note: null });
  const changes = [...byDay.values()].sort((a, b) => a.valid_from.localeCompare(b.valid_from));
  const shipped = CNB_REPO_RATES_KNOWN_THROUGH.day;
  return { changes, knownThrough: knownThrough && knownThrough > shipped ? knownThrough : shipped };
}

export async function repoRateHistory(scope: TenantScope): Promise<RepoRateHistory> {
  const { changes, knownThrough } = await merged(scope);
  return { known_through: knownThrough, changes };
}

/** `rpc.settings.repo_rates`: the history as decimal strings, for the interest arithmetic. */
export async function repoRatesAnswer(scope: TenantScope): Promise<RepoRatesAnswer> {
  const { changes, knownThrough } = await merged(scope);
  return { known_through: knownThrough, changes: changes.map((c) => ({ valid_from: c.valid_from, rate: new Dec(c.rate).toFixed() })) };
}

async function extendCoverage(em: EntityManager, orgId: number, day: string): Promise<void> {
  await sqlRows(
    em,
    `insert into repo_rate_coverage (org_id, known_through) values (?, ?::date)
     on conflict (org_id) do update set known_through = greatest(repo_rate_coverage.known_through, excluded.known_through), updated_at = now()`,
    [orgId, day],
  );
}

/**
 * Stores the changes of a history file: a day set by hand stays (the organisation's own word), any
 * other day takes the file's rate. Answers how many rows it stored or changed.
 */
export async function storeRepoHistory(scope: TenantScope, changes: ReadonlyArray<{ valid_from: string; rate: string }>, knownThrough: string): Promise<number> {
  const rows = await sqlRows<{ valid_from: string }>(
    scope.em,
    `insert into repo_rates (org_id, valid_from, rate, source)
     select ?, d, r, 'cnb_file' from unnest(?::date[], ?::numeric[]) as f(d, r)
     on conflict (org_id, valid_from) do update set rate = excluded.rate, source = 'cnb_file', updated_at = now()
       where repo_rates.source <> 'manual' and repo_rates.rate <> excluded.rate
     returning valid_from`,
    [scope.orgId, changes.map((c) => c.valid_from), changes.map((c) => c.rate)],
  );
  await extendCoverage(scope.em, scope.orgId, knownThrough);
  return rows.length;
}

/** Reads the bank's file: 400 `invalid_repo_rate_file` naming each bad line. */
export function readRepoFile(body: unknown): Array<{ valid_from: string; rate: string }> {
  const text = readTextBody(body, 'The repo-rate file', "Send the CNB's repo-rate history file (vyvoj_repo_historie.txt) as the body, Content-Type text/plain", MAX_FILE_BYTES);
  try {
    return parseCnbRepoHistory(text);
  } catch (err) {
    if (err instanceof RepoRateFileError) {
      const errors = err.problems.slice(0, 100).map((p) => ({ path: p.line ? `body:${p.line}` : 'body', message: p.message, code: 'invalid_repo_rate_file' }));
      throw new ValidationError(`The repo-rate file is not usable: ${err.message}`, errors, 'invalid_repo_rate_file');
    }
    throw err;
  }
}

function refuseFuture(day: string, today: string, path: string, what: string): void {
  if (day <= today) return;
  const message = `${day} is after today (${today}): ${what}`;
  throw new BusinessRuleError(`The repo-rate history cannot be known ahead: ${message}`, 'date_in_future', [{ path, message, code: 'date_in_future' }]);
}

/** POST /v1/settings/repo-rates/import: the file's changes, the history known through the day it was published (today unless said). */
export async function importRepoRates(scope: TenantScope & { now: () => Date }, body: unknown, asOf: string | undefined): Promise<RepoRateImport> {
  const today = pragueToday(scope.now());
  if (asOf) refuseFuture(asOf, today, 'as_of', 'a file is published on a day that has come');
  const changes = readRepoFile(body);
  const knownThrough = asOf ?? today;
  const stored = await storeRepoHistory(scope, changes, knownThrough);
  const { knownThrough: now } = await merged(scope);
  return { changes: changes.length, stored, known_through: now };
}

/**
 * PUT /v1/settings/repo-rates/{date}: a change set by hand, which the bank's file never replaces.
 * The history is then known through today, or through the change's day when the bank announced it
 * ahead (at most 31 days): whoever sets the rate knows the one in force now. Further ahead is refused.
 */
export async function putRepoRate(scope: TenantScope & { now: () => Date }, date: string, body: RepoRateRequest): Promise<RepoRateHistory> {
  const today = pragueToday(scope.now());
  const latest = new Date(Date.parse(`${today}T00:00:00Z`) + 31 * 86_400_000).toISOString().slice(0, 10);
  refuseFuture(date, latest, 'date', 'a change is set once the bank has announced it, at most 31 days ahead');
  await sqlRows(
    scope.em,
    `insert into repo_rates (org_id, valid_from, rate, source) values (?, ?::date, ?, 'manual')
     on conflict (org_id, valid_from) do update set rate = excluded.rate, source = 'manual', updated_at = now()`,
    [scope.orgId, date, new Dec(body.rate).toFixed()],
  );
  await extendCoverage(scope.em, scope.orgId, date > today ? date : today);
  return repoRateHistory(scope);
}
