import type { Logger } from '../logger.js';
import type { StandingJudged } from './admission.js';

/** Between two lines about the queue judged standing, at least this long (an overload turns it on every interval or two). */
export const STANDING_LINE_EVERY_MS = 10_000;

/**
 * A warning when the admission gate turns to refusing, with what it saw, so an operator can tell
 * a burst of 503s an overload (more came than finished while finishing went on) from a stall the
 * gate did not see as one (finishing had stopped): the first turn, then at most one line every
 * STANDING_LINE_EVERY_MS, counting the turns since the last line.
 */
export function standingLines(logger: Logger, now: () => number = () => performance.now()): (seen: StandingJudged) => void {
  let lastLine = -Infinity;
  let turns = 0;
  return (seen) => {
    turns++;
    const at = now();
    if (at - lastLine < STANDING_LINE_EVERY_MS) return;
    const figures: Record<string, number | null> = { turns };
    // milliseconds to a tenth
    for (const [name, value] of Object.entries(seen)) figures[name] = value === null ? null : Math.round(value * 10) / 10;
    logger.warn('request queue judged standing: refusing what waits past the target', figures);
    lastLine = at;
    turns = 0;
  };
}
