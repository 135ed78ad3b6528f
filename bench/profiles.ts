import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Where each process spent its CPU while a figure was measured (`npm run bench -- --profile`):
 * every process runs with `--cpu-prof` into its own folder and writes its profile when it stops;
 * this cuts each profile to the windows the benchmarks marked, so boot, warm-up and the pauses
 * between figures stay out, and names the frames and packages by self time.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of a run to read the profiles over, in the monotonic clock's microseconds. */
export interface ProfileWindow {
  label: string;
  fromUs: number;
  toUs: number;
  /** What the window's figure is per (`credit note`) and how many there were: frames then read per unit. */
  per?: { what: string; count: number };
}

/** The monotonic clock V8's profiler stamps samples with, in microseconds: the same in every process. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export interface HotFrame {
  frame: string;
  /** Self time over the window, in ms, or per unit when the window names one. */
  ms: number;
  /** Share of the process's busy time in the window, in %. */
  share: number;
}

export interface WindowProfile {
  /** Busy CPU of the process over the window (idle excluded), ms or ms per unit. */
  busyMs: number;
  frames: HotFrame[];
  /** Self time by package (`node_modules/<name>`), source file of ours, or V8/runtime bucket. */
  packages: HotFrame[];
}

function fileOf(url: string, root: string): string {
  return url.replace(/^file:\/\//, '').replace(`${root}/`, '');
}

function frameName(n: ProfileNode, root: string): string {
  const { functionName, lineNumber } = n.callFrame;
  const file = fileOf(n.callFrame.url, root);
  const where = file ? `${file.replace(/^.*node_modules\//, 'node_modules/')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
}

/** The package a frame belongs to: a node_modules package, Node's own modules, a file of ours, or V8's bucket. */
function packageOf(n: ProfileNode, root: string): string {
  const file = fileOf(n.callFrame.url, root);
  if (!file) return n.callFrame.functionName || '(native)';
  const inModules = file.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const rest = file.slice(inModules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (file.startsWith('node:')) return 'node (internals)';
  return file;
}

function top(map: Map<string, number>, busy: number, scale: number, n: number): HotFrame[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([frame, us]) => ({ frame, ms: Math.round((us / 1000 / scale) * 1000) / 1000, share: Math.round((us / busy) * 1000) / 10 }));
}

/** Where the bundles' source maps are kept for the summary: the run's bundle folder is gone by then. */
export const SOURCE_MAPS_FOLDER = 'source-maps';

/**
 * The processes run as bundles (decision 135), so a frame of ours points into `sales.mjs`; with
 * the bundle's source map (copied into the profile folder when the stack stops) it is named by
 * its TypeScript file and line again, so frames and packages read as before.
 */
function sourceMapped(dir: string): (node: ProfileNode) => ProfileNode {
  const maps = new Map<string, SourceMap | null>();
  const mapFor = (bundle: string) => {
    if (!maps.has(bundle)) {
      const file = path.join(dir, SOURCE_MAPS_FOLDER, `${path.basename(bundle)}.map`);
      maps.set(bundle, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null);
    }
    return maps.get(bundle);
  };
  const mapped = new Map<ProfileNode, ProfileNode>();
  return (node) => {
    const { url, lineNumber, columnNumber } = node.callFrame;
    if (!url.endsWith('.mjs') || !url.startsWith('file://')) return node;
    let out = mapped.get(node);
    if (!out) {
      const bundle = fileURLToPath(url);
      const entry = mapFor(bundle)?.findEntry(lineNumber, columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
      out = entry?.originalSource
        ? { ...node, callFrame: { ...node.callFrame, url: `file://${path.resolve(path.dirname(bundle), entry.originalSource.replace(/^file:\/\//, ''))}`, lineNumber: entry.originalLine ?? 0 } }
        : node;
      mapped.set(node, out);
    }
    return out;
  };
}

/** Self time per frame and per package of one profile within `window`, the `n` largest of each. */
export function windowProfile(profile: CpuProfile, root: string, window: ProfileWindow, n = 8, map: (node: ProfileNode) => ProfileNode = (node) => node): WindowProfile {
  const byId = new Map(profile.nodes.map((node) => [node.id, map(node)]));
  const frames = new Map<string, number>();
  const packages = new Map<string, number>();
  let busy = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < window.fromUs) continue;
    if (t > window.toUs) break;
    const node = byId.get(profile.samples[i]);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    // a sample stands for the time until the next one
    const us = profile.timeDeltas[i + 1] ?? 0;
    busy += us;
    const name = frameName(node, root);
    frames.set(name, (frames.get(name) ?? 0) + us);
    const pkg = packageOf(node, root);
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  }
  const scale = window.per?.count ? window.per.count : 1;
  const share = busy || 1;
  return { busyMs: Math.round((busy / 1000 / scale) * 1000) / 1000, frames: top(frames, share, scale, n), packages: top(packages, share, scale, n) };
}

/** Every process's profile (`<dir>/<process>/*.cpuprofile`) read over each window: window label → process → profile. */
export function summariseProfiles(dir: string, root: string, windows: ProfileWindow[]): Record<string, Record<string, WindowProfile>> {
  const out: Record<string, Record<string, WindowProfile>> = {};
  const profiles: Array<[string, CpuProfile]> = [];
  const map = sourceMapped(dir);
  for (const name of readdirSync(dir)) {
    if (name === SOURCE_MAPS_FOLDER) continue;
    const files = readdirSync(path.join(dir, name)).filter((f) => f.endsWith('.cpuprofile'));
    if (files.length) profiles.push([name, JSON.parse(readFileSync(path.join(dir, name, files[0]), 'utf8')) as CpuProfile]);
  }
  for (const w of windows) {
    const byProcess: Record<string, WindowProfile> = {};
    for (const [name, profile] of profiles) byProcess[name] = windowProfile(profile, root, w, 8, map);
    out[w.label] = byProcess;
  }
  return out;
}

/** The summary as text: per window, the processes by busy time, each with its top packages and frames. */
export function formatProfiles(summary: Record<string, Record<string, WindowProfile>>, windows: ProfileWindow[]): string {
  const out: string[] = [];
  for (const w of windows) {
    const byProcess = summary[w.label];
    if (!byProcess) continue;
    const unit = w.per ? `ms per ${w.per.what}` : 'ms';
    out.push(`\n${w.label}: where each process spent its CPU (${unit}, self time)`);
    for (const [name, p] of Object.entries(byProcess).sort((a, b) => b[1].busyMs - a[1].busyMs)) {
      if (p.busyMs === 0) continue;
      out.push(`  ${name}: ${p.busyMs} busy`);
      out.push(`    packages: ${p.packages.map((f) => `${f.frame} ${f.ms}`).join(', ')}`);
      for (const f of p.frames) out.push(`    ${String(f.share).padStart(5)} %  ${String(f.ms).padStart(8)}  ${f.frame}`);
    }
  }
  return out.join('\n');
}
