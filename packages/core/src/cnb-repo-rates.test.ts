import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CNB_REPO_RATE_HISTORY, CNB_REPO_RATES_KNOWN_THROUGH, REPO_FILE_HEADER, RepoRateFileError, SHIPPED_REPO_RATES, parseCnbRepoHistory, repoRateIn } from './cnb-repo-rates.js';

const fixture = readFileSync(path.resolve(import.meta.dirname, '../../../tests/fixtures/cnb/vyvoj_repo_historie.txt'), 'utf8');

describe('the CNB repo-rate history file', () => {
  it('reads the bank’s layout (BOM, CRLF, decimal commas) into the shipped history', () => {
    expect(fixture.charCodeAt(0)).toBe(0xfeff);
    const changes = parseCnbRepoHistory(fixture);
    expect(changes).toEqual(CNB_REPO_RATE_HISTORY.map(({ valid_from, rate }) => ({ valid_from, rate })));
    expect(changes.at(-1)).toEqual({ valid_from: '2025-05-09', rate: '3.50' });
    // the same without the BOM, with LF, and with blank lines
    expect(parseCnbRepoHistory(fixture.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n') + '\n\n')).toEqual(changes);
  });

  it.each([
    ['an HTML error page', '<html><body>503</body></html>', /header/],
    ['another history (the lombard rate)', 'PLATNA_OD|CNB_LOMBARDNI_SAZBA_V_%\n20250509|4,50', /header/],
    ['a day that is not one', `${REPO_FILE_HEADER}\n20250230|3,75`, /line 2: 2025-02-30 is not a calendar day/],
    ['a dashed day', `${REPO_FILE_HEADER}\n2025-02-07|3,75`, /line 2/],
    ['a decimal point', `${REPO_FILE_HEADER}\n20250509|3.50`, /line 2/],
    ['a missing rate', `${REPO_FILE_HEADER}\n20250509|`, /line 2/],
    ['an extra column', `${REPO_FILE_HEADER}\n20250509|3,50|x`, /line 2/],
    ['a rate out of range', `${REPO_FILE_HEADER}\n20250509|250,00`, /not a repo rate/],
    ['a day given twice', `${REPO_FILE_HEADER}\n20250509|3,50\n20250509|3,25`, /given twice/],
    ['no change at all', `${REPO_FILE_HEADER}\n`, /no change/],
    ['a NUL byte', `${REPO_FILE_HEADER}\n20250509|3,50\u0000`, /line 2/],
  ])('refuses %s, the whole file', (_name, text, message) => {
    expect(() => parseCnbRepoHistory(text)).toThrow(RepoRateFileError);
    expect(() => parseCnbRepoHistory(text)).toThrow(message);
  });

  it('counts every bad line, not just the first', () => {
    const err = (() => {
      try {
        parseCnbRepoHistory(`${REPO_FILE_HEADER}\n20250101|3,50\n2025-02-07|3,75\n20250509|3.50\n20260619|3,75`);
      } catch (e) {
        return e as RepoRateFileError;
      }
    })();
    expect(err?.problems.map((p) => p.line)).toEqual([3, 4]);
  });

  it('refuses a file longer than any history', () => {
    expect(() => parseCnbRepoHistory(`${REPO_FILE_HEADER}\n${'20250509|3,50\n'.repeat(6_000)}`)).toThrow(/more than 5000 lines/);
  });
});

describe('the rate in force on a day', () => {
  it('is the last change on or before it, within what the history knows', () => {
    expect(repoRateIn(SHIPPED_REPO_RATES, '2012-11-01')).toBeNull();
    expect(repoRateIn(SHIPPED_REPO_RATES, '2012-11-02')).toBe('0.05');
    expect(repoRateIn(SHIPPED_REPO_RATES, '2022-06-22')).toBe('5.75');
    expect(repoRateIn(SHIPPED_REPO_RATES, '2022-06-23')).toBe('7.00');
    expect(repoRateIn(SHIPPED_REPO_RATES, '2025-12-31')).toBe('3.50');
    expect(repoRateIn(SHIPPED_REPO_RATES, CNB_REPO_RATES_KNOWN_THROUGH.day)).toBe('3.50');
    expect(repoRateIn(SHIPPED_REPO_RATES, '2026-02-06')).toBeNull();
    // changes in any order
    expect(repoRateIn({ changes: [{ valid_from: '2026-05-07', rate: '3.25' }, ...CNB_REPO_RATE_HISTORY], known_through: '2026-12-02' }, '2026-06-30')).toBe('3.25');
  });

  it('names a source for every shipped value', () => {
    for (const c of CNB_REPO_RATE_HISTORY) expect(c.source).toMatch(/CNB/);
    expect(CNB_REPO_RATES_KNOWN_THROUGH.source).toMatch(/5 February 2026/);
  });
});
