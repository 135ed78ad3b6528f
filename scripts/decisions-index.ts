import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/*
 * The index at the top of docs/decisions.md, made from the decisions themselves: a row per
 * decision with its title and whether it is current, amended or superseded. A decision that
 * changes an earlier one says so right after its title — `(Amends decision 8.)` or
 * `(Supersedes decision 8.)` — and the index marks the earlier one. Run `npm run decisions-index`
 * after adding a decision; the test suite fails while the index is stale.
 */

const FILE = path.resolve(import.meta.dirname, '../docs/decisions.md');
const START = '<!-- index: made by `npm run decisions-index` from the decisions below -->';
const END = '<!-- /index -->';

export interface Decision {
  number: number;
  title: string;
  amends: number[];
  supersedes: number[];
}

/** Every decision of the file, in order, with what it says it changes. */
export function readDecisions(text: string): Decision[] {
  const out: Decision[] = [];
  for (const m of text.matchAll(/^(\d+)\. \*\*([\s\S]+?)\*\*([^\n]*(?:\n {3,}[^\n]*)?)/gm)) {
    const rest = m[3];
    const refs = (verb: string) => [...rest.matchAll(new RegExp(`\\(${verb} decisions? ([\\d, and]+)\\.\\)`, 'g'))].flatMap((r) => r[1].match(/\d+/g)!.map(Number));
    out.push({ number: Number(m[1]), title: m[2].replace(/\s+/g, ' ').trim(), amends: refs('Amends'), supersedes: refs('Supersedes') });
  }
  return out;
}

/** The index table: status current, amended by …, or superseded by …. */
export function indexOf(decisions: Decision[]): string {
  const amendedBy = new Map<number, number[]>();
  const supersededBy = new Map<number, number>();
  for (const d of decisions) {
    for (const n of d.amends) amendedBy.set(n, [...(amendedBy.get(n) ?? []), d.number]);
    for (const n of d.supersedes) supersededBy.set(n, d.number);
  }
  const rows = decisions.map((d) => {
    const status = supersededBy.has(d.number)
      ? `superseded by ${supersededBy.get(d.number)}`
      : amendedBy.has(d.number)
        ? `current, amended by ${amendedBy.get(d.number)!.join(', ')}`
        : 'current';
    return `| ${d.number} | ${d.title.replace(/\|/g, '\\|')} | ${status} |`;
  });
  return [START, '', '| # | Decision | Status |', '|---|---|---|', ...rows, '', END].join('\n');
}

/** The file with its index made anew (inserted after the introduction when it has none). */
export function withIndex(text: string): string {
  const index = indexOf(readDecisions(text));
  const start = text.indexOf(START);
  if (start >= 0) return text.slice(0, start) + index + text.slice(text.indexOf(END) + END.length);
  const first = text.search(/^1\. \*\*/m);
  return `${text.slice(0, first)}${index}\n\n${text.slice(first)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const text = readFileSync(FILE, 'utf8');
  const next = withIndex(text);
  if (next !== text) writeFileSync(FILE, next);
  console.log(`${readDecisions(next).length} decisions indexed`);
}
