import { z } from 'zod';
import { isoDate } from './common.js';

// --- the CNB repo-rate history (GET /v1/settings/repo-rates, POST …/import, PUT …/{date}) --------

/*
 * The Czech National Bank's two-week repo rate, which statutory late-payment interest is computed
 * from (issue 70). Each organisation's history is the one the code ships with, extended by what it
 * imported or set and by what settings fetched from the bank (REPO_RATES_URL).
 */

export const REPO_RATE_SOURCES = ['shipped', 'cnb_file', 'manual'] as const;

const repoRate = z.number().min(-10).max(100).describe('Percent a year');

export const repoRateChangeSchema = z
  .object({
    valid_from: isoDate.describe('The first day the rate was in force'),
    rate: repoRate,
    source: z.enum(REPO_RATE_SOURCES).describe("shipped: the history the service ships with; cnb_file: the bank's history file (imported or fetched); manual: set by hand"),
    note: z.string().nullable().describe('Where a shipped value comes from; null for the organisation’s own'),
  })
  .meta({ id: 'RepoRateChange', description: 'A change of the CNB two-week repo rate' });
export type RepoRateChange = z.infer<typeof repoRateChangeSchema>;

export const repoRateHistorySchema = z
  .object({
    known_through: isoDate.describe('The last day the history is known to be complete through: interest of a half-year whose fixing day is later is not computed (null on a reminder line)'),
    changes: z.array(repoRateChangeSchema).describe('Each change, oldest first'),
  })
  .meta({ id: 'RepoRateHistory', description: "The CNB repo-rate history the organisation's statutory interest is computed from" });
export type RepoRateHistory = z.infer<typeof repoRateHistorySchema>;

/** The body of an import: the bank's `vyvoj_repo_historie.txt` as published. */
export const repoRateFileSchema = z.string().describe("The CNB's repo-rate history file (text/plain): PLATNA_OD|CNB_REPO_SAZBA_V_% then YYYYMMDD|rate, decimal commas");

export const repoRateImportQuerySchema = z.object({
  as_of: isoDate.optional().describe('The day the file was published: the history is then known complete through it (default today, in Prague); not after today'),
});

export const repoRateImportSchema = z
  .object({
    changes: z.int().describe('Changes the file held'),
    stored: z.int().describe('Changes stored or changed by it'),
    known_through: isoDate,
  })
  .meta({ id: 'RepoRateImport', description: 'What an imported repo-rate file held' });
export type RepoRateImport = z.infer<typeof repoRateImportSchema>;

export const repoRatePathSchema = z.object({ date: isoDate.describe('The first day the rate is in force') });

export const repoRateRequestSchema = z
  .object({ rate: repoRate.refine((r) => Number.isFinite(r) && Math.round(r * 10_000) === r * 10_000, { message: 'at most four decimals' }) })
  .meta({ id: 'RepoRateRequest', description: 'A change of the repo rate set by hand (kept over the bank file): the history is then known through today, or the change’s day when it is announced ahead' });
export type RepoRateRequest = z.infer<typeof repoRateRequestSchema>;

/** `rpc.settings.repo_rates`: the organisation's history as its statutory interest reads it. */
export const repoRatesAnswerSchema = z.object({
  known_through: isoDate,
  changes: z.array(z.object({ valid_from: isoDate, rate: z.string() })),
});
export type RepoRatesAnswer = z.infer<typeof repoRatesAnswerSchema>;
