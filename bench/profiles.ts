import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * The top frames of each process's CPU profile (`npm run bench -- --profile`): every process is
 * started with `--cpu-prof` into its own folder and writes its profile when it stops; this reads
 * them and names where each process spent its time, by self time.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export interface HotFrame {
  frame: string;
  selfMs: number;
  share: number;
}

function frameName(n: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url.replace(/^file:\/\//, '').replace(`${root}/`, '');
  const where = file ? `${file.replace(/^.*node_modules\//, 'node_modules/')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
}

/** Self time per frame of one profile, the `top` largest (idle and GC kept: they are where time went too). */
export function hotFrames(profile: CpuProfile, root: string, top = 8): HotFrame[] {
  const samples = profile.samples?.length ?? profile.nodes.reduce((a, n) => a + (n.hitCount ?? 0), 0);
  if (!samples) return [];
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / samples;
  const byFrame = new Map<string, number>();
  for (const n of profile.nodes) {
    if (!n.hitCount) continue;
    const name = frameName(n, root);
    byFrame.set(name, (byFrame.get(name) ?? 0) + n.hitCount);
  }
  const busy = [...byFrame.entries()].filter(([f]) => !f.startsWith('(idle)')).reduce((a, [, h]) => a + h, 0) || 1;
  return [...byFrame.entries()]
    .filter(([f]) => !f.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, hits]) => ({ frame, selfMs: Math.round(hits * msPerSample), share: Math.round((hits / busy) * 1000) / 10 }));
}

/** Every process's top frames from `<dir>/<process>/*.cpuprofile`. */
export function summariseProfiles(dir: string, root: string): Record<string, HotFrame[]> {
  const out: Record<string, HotFrame[]> = {};
  for (const name of readdirSync(dir)) {
    const files = readdirSync(path.join(dir, name)).filter((f) => f.endsWith('.cpuprofile'));
    if (!files.length) continue;
    out[name] = hotFrames(JSON.parse(readFileSync(path.join(dir, name, files[0]), 'utf8')) as CpuProfile, root);
  }
  return out;
}
