import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexOf, readDecisions, withIndex } from '../../scripts/decisions-index.js';

const FILE = path.resolve(import.meta.dirname, '../../docs/decisions.md');

describe('the decisions index', () => {
  const text = readFileSync(FILE, 'utf8');

  it('is current: `npm run decisions-index` would not change the file', () => {
    expect(withIndex(text) === text, 'docs/decisions.md: run `npm run decisions-index`').toBe(true);
  });

  it('numbers the decisions 1, 2, 3 … without a gap or a repeat, and each names only earlier decisions as changed', () => {
    const decisions = readDecisions(text);
    expect(decisions.map((d) => d.number)).toEqual(decisions.map((_, i) => i + 1));
    for (const d of decisions) for (const n of [...d.amends, ...d.supersedes]) expect(n, `decision ${d.number}`).toBeLessThan(d.number);
  });

  it('marks an amended and a superseded decision', () => {
    const index = indexOf([
      { number: 1, title: 'A', amends: [], supersedes: [] },
      { number: 2, title: 'B | C', amends: [], supersedes: [] },
      { number: 3, title: 'D', amends: [1], supersedes: [2] },
    ]);
    expect(index).toContain('| 1 | A | current, amended by 3 |');
    expect(index).toContain('| 2 | B \\| C | superseded by 3 |');
    expect(index).toContain('| 3 | D | current |');
  });
});
