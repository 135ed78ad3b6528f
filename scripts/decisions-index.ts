import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/*
 * The decisions, one per file (docs/decisions/NNN-short-title.md), and their index
 * (docs/decisions/README.md), grouped by topic. A decision that changes an earlier one says so
 * at the start of its text — `(Amends decision 8.)` or `(Supersedes decision 8.)` — and each
 * file's `Status:` line is made from those: current, amended by …, or superseded by …, so no
 * status can go stale by hand. Run `npm run decisions-index` after adding a decision; the test
 * suite fails while a status or the index is stale.
 */

export const DIR = path.resolve(import.meta.dirname, '../docs/decisions');
const INDEX = 'README.md';
const START = '<!-- index: made by `npm run decisions-index` from the decision files -->';
const END = '<!-- /index -->';

/** The topics an index groups by, in its order; each decision names one (`Topic:`). */
export const TOPICS = ['money', 'posting', 'tax', 'documents', 'e-invoices', 'bank files', 'events', 'http', 'security', 'deploy and operations', 'performance', 'code'] as const;

export interface Decision {
  number: number;
  title: string;
  topic: string;
  file: string;
  amends: number[];
  supersedes: number[];
}

/** One decision file's number, title, topic and what it says it changes. */
export function readDecision(file: string, text: string): Decision {
  const head = /^# (\d+)\. (.+)\n\n- Status: [^\n]*\n- Topic: ([^\n]+)\n\n([\s\S]*)$/.exec(text);
  if (!head) throw new Error(`${file}: not a decision ("# N. Title", "- Status:", "- Topic:", then its text)`);
  const opening = head[4].slice(0, 300);
  const refs = (verb: string) => [...opening.matchAll(new RegExp(`\\(${verb} decisions? ([\\d, and]+)\\.\\)`, 'g'))].flatMap((r) => r[1].match(/\d+/g)!.map(Number));
  return { number: Number(head[1]), title: head[2].trim(), topic: head[3].trim(), file, amends: refs('Amends'), supersedes: refs('Supersedes') };
}

export function readDecisions(dir = DIR): Array<{ decision: Decision; text: string }> {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.md$/.test(f))
    .sort()
    .map((f) => {
      const text = readFileSync(path.join(dir, f), 'utf8');
      return { decision: readDecision(f, text), text };
    });
}

/** Each decision's status from what the later ones say of it. */
export function statusesOf(decisions: Decision[]): Map<number, string> {
  const amendedBy = new Map<number, number[]>();
  const supersededBy = new Map<number, number>();
  for (const d of decisions) {
    for (const n of d.amends) amendedBy.set(n, [...(amendedBy.get(n) ?? []), d.number]);
    for (const n of d.supersedes) supersededBy.set(n, d.number);
  }
  return new Map(
    decisions.map((d) => [
      d.number,
      supersededBy.has(d.number) ? `superseded by ${supersededBy.get(d.number)}` : amendedBy.has(d.number) ? `current, amended by ${amendedBy.get(d.number)!.join(', ')}` : 'current',
    ]),
  );
}

/** A decision file with its status line made anew. */
export function withStatus(text: string, status: string): string {
  return text.replace(/^(# [^\n]+\n\n)- Status: [^\n]*\n/, `$1- Status: ${status}\n`);
}

/** The index: a table per topic, each row the decision's number (linked), title and status. */
export function indexOf(decisions: Decision[]): string {
  const status = statusesOf(decisions);
  const sections = TOPICS.map((topic) => {
    const rows = decisions
      .filter((d) => d.topic === topic)
      .map((d) => `| [${d.number}](${d.file}) | ${d.title.replace(/\|/g, '\\|')} | ${status.get(d.number)} |`);
    return rows.length ? [`## ${topic[0].toUpperCase()}${topic.slice(1)}`, '', '| # | Decision | Status |', '|---|---|---|', ...rows].join('\n') : '';
  }).filter(Boolean);
  return [START, '', ...sections.flatMap((s) => [s, '']), END].join('\n');
}

/** The index file with its index made anew. */
export function withIndex(readme: string, decisions: Decision[]): string {
  const start = readme.indexOf(START);
  if (start < 0) throw new Error(`docs/decisions/${INDEX} has no index markers`);
  return readme.slice(0, start) + indexOf(decisions) + readme.slice(readme.indexOf(END) + END.length);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const all = readDecisions();
  const decisions = all.map((a) => a.decision);
  const status = statusesOf(decisions);
  for (const { decision, text } of all) {
    const next = withStatus(text, status.get(decision.number)!);
    if (next !== text) writeFileSync(path.join(DIR, decision.file), next);
  }
  const readmePath = path.join(DIR, INDEX);
  const readme = readFileSync(readmePath, 'utf8');
  const next = withIndex(readme, decisions);
  if (next !== readme) writeFileSync(readmePath, next);
  console.log(`${decisions.length} decisions indexed`);
}
