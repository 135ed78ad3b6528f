import { describe, expect, it } from 'vitest';
import { warningsRecorder } from '../warnings-recorder.js';
import type { StandingJudged } from './admission.js';
import { STANDING_LINE_EVERY_MS, standingLines } from './standing-lines.js';

/* The gate's turns to refusing, as an operator reads them: the first at once, then one line in ten seconds with the turns between. */

const seen: StandingJudged = { intervalMs: 500.04, arrivals: 61, finished: 20, shortestWaitMs: 73.456, running: 16, queued: 41, sinceFinishedMs: 2.25, usualGapMs: null };

describe('standingLines', () => {
  it('writes the first turn with what the gate saw, then at most one line per period counting the turns', () => {
    let now = 5_000;
    const { log, lines } = warningsRecorder();
    const turned = standingLines(log, () => now);
    turned(seen);
    expect(lines).toEqual([
      {
        msg: 'request queue judged standing: refusing what waits past the target',
        fields: { turns: 1, intervalMs: 500, arrivals: 61, finished: 20, shortestWaitMs: 73.5, running: 16, queued: 41, sinceFinishedMs: 2.3, usualGapMs: null },
      },
    ]);
    for (let i = 0; i < 7; i++) {
      now += 1_000;
      turned({ ...seen, usualGapMs: 6.25 });
    }
    expect(lines).toHaveLength(1);
    now = 5_000 + STANDING_LINE_EVERY_MS;
    turned({ ...seen, arrivals: 90 });
    expect(lines).toHaveLength(2);
    expect(lines[1].fields).toMatchObject({ turns: 8, arrivals: 90, usualGapMs: null });
    now += 1;
    turned(seen);
    expect(lines).toHaveLength(2);
  });
});
