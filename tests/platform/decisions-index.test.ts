import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIR, TOPICS, indexOf, readDecision, readDecisions, statusesOf, withIndex, withStatus } from '../../scripts/decisions-index.js';

describe('the decisions, one per file', () => {
  const all = readDecisions();
  const decisions = all.map((a) => a.decision);

  it('are numbered 1, 2, 3 … without a gap or a repeat, each file named by its number and title, and each names only earlier decisions as changed', () => {
    expect(decisions.map((d) => d.number)).toEqual(decisions.map((_, i) => i + 1));
    for (const d of decisions) {
      expect(d.file.startsWith(`${String(d.number).padStart(3, '0')}-`), d.file).toBe(true);
      for (const n of [...d.amends, ...d.supersedes]) expect(n, `decision ${d.number}`).toBeLessThan(d.number);
    }
  });

  it('each has one of the topics, and a status that is what the later decisions say of it', () => {
    const status = statusesOf(decisions);
    for (const { decision, text } of all) {
      expect(TOPICS as readonly string[], decision.file).toContain(decision.topic);
      expect(withStatus(text, status.get(decision.number)!) === text, `${decision.file}: run \`npm run decisions-index\``).toBe(true);
    }
    // what the house knows: EntitySchema gave way to defineEntity
    expect(status.get(3)).toBe('superseded by 66');
  });

  it('are indexed by topic: `npm run decisions-index` would not change the index', () => {
    const readme = readFileSync(path.join(DIR, 'README.md'), 'utf8');
    expect(withIndex(readme, decisions) === readme, 'docs/decisions/README.md: run `npm run decisions-index`').toBe(true);
  });

  it('marks an amended and a superseded decision, and refuses a file that is not a decision', () => {
    const d = (number: number, title: string, amends: number[] = [], supersedes: number[] = []) => ({ number, title, topic: 'money', file: `${number}.md`, amends, supersedes });
    const index = indexOf([d(1, 'A'), d(2, 'B | C'), d(3, 'D', [1], [2])]);
    expect(index).toContain('| [1](1.md) | A | current, amended by 3 |');
    expect(index).toContain('| [2](2.md) | B \\| C | superseded by 3 |');
    expect(index).toContain('| [3](3.md) | D | current |');
    expect(readDecision('x.md', '# 4. E\n\n- Status: current\n- Topic: money\n\n(Amends decisions 1 and 2.) Text.').amends).toEqual([1, 2]);
    expect(() => readDecision('x.md', '4. **E** text')).toThrow(/not a decision/);
  });
});
