/**
 * `npm run bench` (`-- --quick` for about a minute): starts the whole system as separate
 * processes, drives it over HTTP from this process (and from the paced generator, bench/paced.ts),
 * and prints each figure beside its ceiling
 * measured in the same run on the same machine. Results go to bench/results/latest.json.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { root, spawnProc, startBenchStack, type BenchStack } from './stack.js';
import { load } from './load.js';
import { benchmarks, measureIdleFloor } from './suites.js';
import { formatProfiles, monotonicUs, summariseProfiles } from './profiles.js';
import type { BenchContext, Figure } from './context.js';

const quick = process.argv.includes('--quick');
/** `--profile`: CPU profiles of every process; their top frames are printed and kept in latest.json. */
const profile = process.argv.includes('--profile');
/**
 * `--only=<words>` runs the benchmarks whose title contains them (for working on one figure);
 * `--only=trial|soak` runs those whose title contains either.
 */
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .toLowerCase()
  .split('|')
  .filter(Boolean);

function fmt(v: number | null | undefined, digits = 1) {
  return v === null || v === undefined || Number.isNaN(v) ? '—' : v.toFixed(digits);
}

async function main() {
  const started = Date.now();
  process.stdout.write(`Starting the system for benchmarks (${quick ? 'quick' : 'full'} run)…\n`);
  if (profile) process.env.BENCH_PROFILE_DIR = mkdtempSync(path.join(tmpdir(), 'bench-prof-'));
  const stack = await startBenchStack();
  const ctx: BenchContext = { stack, quick, figures: [], auth: { authorization: `Bearer ${stack.adminKey}` }, windows: [] };
  const sampler = setInterval(() => stack.sampleMemory(), 250);
  try {
    await measureIdleFloor(ctx);
    let vacuumedNote = false;
    for (const b of benchmarks.filter((x) => !only?.length || only.some((w) => x.title.toLowerCase().includes(w)))) {
      process.stdout.write(`• ${b.title}\n`);
      // what autovacuum would have done by now (outside every measured window)
      if ((await stack.vacuumIfNoAutovacuum()) && !vacuumedNote) {
        vacuumedNote = true;
        process.stdout.write('  (the server runs with autovacuum off: the bench vacuums and analyzes the service databases before each benchmark)\n');
      }
      const marked = ctx.windows.length;
      const fromUs = monotonicUs();
      try {
        await b.run(ctx);
      } catch (err) {
        ctx.figures.push({ name: b.title, value: null, unit: '', note: `failed: ${(err as Error).message}` });
      }
      if (ctx.windows.length === marked) ctx.windows.push({ label: b.title, fromUs, toUs: monotonicUs() });
    }
  } finally {
    clearInterval(sampler);
    stack.sampleMemory();
    for (const p of stack.procs) {
      ctx.figures.push({
        name: `peak RSS ${p.name}`,
        value: p.peakRssMb,
        unit: 'MB',
        target: '≤ 250 MB',
        met: p.peakRssMb <= 250,
      });
    }
    await stack.close();
  }
  const profiles = process.env.BENCH_PROFILE_DIR ? summariseProfiles(process.env.BENCH_PROFILE_DIR, root, ctx.windows) : undefined;

  const rows = ctx.figures.map((f) => [
    f.name,
    `${fmt(f.value, f.unit === 'req/s' || f.unit === 'docs/s' ? 0 : 1)} ${f.unit}`,
    f.ceiling !== undefined ? `${fmt(f.ceiling, f.unit === 'req/s' || f.unit === 'docs/s' ? 0 : 1)} ${f.unit} (${f.ceilingName ?? ''})` : '',
    f.ratio !== undefined && f.ratio !== null ? `${(f.ratio * 100).toFixed(0)} %` : '',
    f.target ?? '',
    f.met === undefined || f.met === null ? '' : f.met ? 'met' : 'MISSED',
    f.note ?? '',
  ]);
  const header = ['figure', 'measured', 'ceiling (same run)', 'ratio', 'target', '', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  process.stdout.write(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${rows.map(line).join('\n')}\n`);
  const out = path.join(root, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'latest.json'),
    JSON.stringify({ date: new Date().toISOString(), quick, seconds: Math.round((Date.now() - started) / 1000), node: process.version, figures: ctx.figures, profiles, windows: profiles ? ctx.windows : undefined }, null, 2),
  );
  if (profiles) process.stdout.write(`${formatProfiles(profiles, ctx.windows)}\n`);
  process.stdout.write(`\nWritten to bench/results/latest.json (${Math.round((Date.now() - started) / 1000)} s)\n`);
}

export { load, spawnProc };
main().catch((err) => {
  process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
