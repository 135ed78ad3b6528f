import { describe, expect, it } from 'vitest';
import { warningsRecorder } from '../warnings-recorder.js';
import { FailureLines } from './failure-lines.js';

/* Failed requests' log lines: a few a second for each kind of failure, the rest counted exactly. */

const shed = { method: 'POST', route: '/v1/sales/invoices', status: 503, code: 'service_unavailable' };
const unreachable = { method: 'GET', route: '/v1/finance/payouts', status: 503, code: 'service_unavailable' };

describe('FailureLines', () => {
  it('writes the first lines of a second for each kind and counts the rest in one line when the second ends', () => {
    let now = 1_000_000;
    const { log, lines } = warningsRecorder();
    const failures = new FailureLines(log, 3, () => now);
    for (let i = 0; i < 10; i++) failures.write(log, shed, { request_id: `a${i}` });
    failures.write(log, unreachable, { request_id: 'b0' }); // another kind: written at once
    expect(lines.map((l) => l.fields.request_id)).toEqual(['a0', 'a1', 'a2', 'b0']);
    expect(lines.every((l) => l.msg === 'request failed')).toBe(true);

    now += 999;
    failures.write(log, shed, { request_id: 'a10' }); // still the same second: counted
    expect(lines).toHaveLength(4);

    now += 1; // the next second: its first failure closes the last one's count, then is written
    failures.write(log, shed, { request_id: 'a11' });
    expect(lines.slice(4)).toEqual([
      { msg: 'requests failed (lines suppressed)', fields: { ...shed, suppressed: 8, since: new Date(1_000_000).toISOString(), lines_per_second: 3 } },
      { msg: 'request failed', fields: { request_id: 'a11' } },
    ]);
  });

  it('writes the count of a second after it ended though no failure followed', async () => {
    const { log, lines } = warningsRecorder();
    const failures = new FailureLines(log, 1);
    for (let i = 0; i < 5; i++) failures.write(log, shed, { request_id: `a${i}` });
    failures.write(log, unreachable, { request_id: 'b0' });
    expect(lines).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 1300));
    const summaries = lines.filter((l) => l.msg === 'requests failed (lines suppressed)');
    // the lone failure of the other kind suppressed nothing: no line for it
    expect(summaries.map((l) => [l.fields.route, l.fields.suppressed])).toEqual([['/v1/sales/invoices', 4]]);
  });

  it('writes every line when the limit is 0', () => {
    const { log, lines } = warningsRecorder();
    const failures = new FailureLines(log, 0);
    for (let i = 0; i < 50; i++) failures.write(log, shed, { request_id: `a${i}` });
    expect(lines).toHaveLength(50);
  });
});
