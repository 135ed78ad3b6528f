import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseConfigSchema, countDeadLetters, createLogger, EventBus, INTERNAL_HEADERS, listDeadLetters, loadConfig, redriveDeadLetters, sqlRows, type DeadLetter, type RunningService } from '@ledgerline/service-kit';
import { streamForSubject } from '@ledgerline/contracts';
import { dropIsolation, eventually, isolation, startTestService, type ApiResponse } from '../support/stack.js';
import { failures, probeService } from './probe-service.js';

/*
 * What a consumer gave up on stays in the DLQ stream until an operator looks: listed by service,
 * consumer, organisation, and published again once its cause is gone, to be applied exactly once
 * and removed, or dropped when it must never apply (`npm run dead-letters`).
 */

const env = isolation();
let svc: RunningService;
const ROOT = path.resolve(import.meta.dirname, '../..');

function call(orgId: number, urlPath: string, init: RequestInit & { json?: unknown } = {}): Promise<ApiResponse> {
  const headers = new Headers(init.headers);
  headers.set(INTERNAL_HEADERS.orgId, String(orgId));
  headers.set(INTERNAL_HEADERS.scopes, 'admin');
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  return fetch(`${svc.url}${urlPath}`, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body }) as Promise<ApiResponse>;
}

/** A note whose event the probe's consumer fails on until `failures` lets it pass; its id and event id. */
async function stuckNote(orgId: number, text: string): Promise<{ id: number; eventId: string }> {
  failures.set(text, 1_000);
  const res = await call(orgId, '/v1/notes', { method: 'POST', json: { text } });
  expect(res.status).toBe(200);
  const { id } = (await res.json()) as { id: number };
  const [row] = await sqlRows<{ event_id: string }>(svc.deps.orm.em.fork(), 'select event_id from kit_outbox where resource = ?', [String(id)]);
  return { id, eventId: row.event_id };
}

async function effectsOf(orgId: number, noteId: number): Promise<Array<{ note_id: number; event_id: string }>> {
  const all = (await (await call(orgId, '/v1/effects')).json()) as Array<{ note_id: number; event_id: string }>;
  return all.filter((e) => e.note_id === noteId);
}

const letterOf = async (eventId: string): Promise<DeadLetter | undefined> => (await listDeadLetters(svc.deps.bus, { service: 'probe' })).find((l) => l.eventId === eventId);

/** Runs `npm run dead-letters` as an operator would, against this test's deployment prefix. */
async function cli(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/dead-letters.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: env.NATS_URL, NATS_SUBJECT_PREFIX: env.NATS_SUBJECT_PREFIX, LOG_LEVEL: 'error' },
    });
    return { stdout, code: 0 };
  } catch (e) {
    const err = e as { stdout?: string; code?: number };
    return { stdout: err.stdout ?? '', code: err.code ?? 1 };
  }
}

beforeAll(async () => {
  // two deliveries and the consumer gives up: a dead letter within a second
  svc = await startTestService(probeService, { ...env, CONSUMER_MAX_DELIVER: '2' });
});
afterAll(async () => {
  await svc?.close();
  await dropIsolation(env);
});

describe('dead letters', () => {
  it('are listed with their consumer, subject, organisation, event id and reason; redriven once the cause is gone, applied once and removed', async () => {
    const note = await stuckNote(7, 'stuck until fixed');
    const letter = await eventually(() => letterOf(note.eventId), 15_000, 100);
    expect(letter).toMatchObject({ service: 'probe', consumer: 'probe-noted', subject: 'sales.probe.noted.7', orgId: 7, eventId: note.eventId });
    expect(letter.reason).toMatch(/failed after 2 deliveries: Error: simulated crash before commit/);
    expect(await effectsOf(7, note.id)).toEqual([]);

    failures.set('stuck until fixed', 0); // the cause is gone (a fixed consumer deployed)
    const outcomes = await redriveDeadLetters(svc.deps.bus, { consumer: 'probe-noted', orgId: 7 });
    expect(outcomes.map((o) => [o.letter.eventId, o.redriven])).toEqual([[note.eventId, true]]);
    await eventually(async () => (await effectsOf(7, note.id)).length > 0, 10_000, 100);
    await new Promise((r) => setTimeout(r, 500));
    expect(await effectsOf(7, note.id)).toEqual([{ note_id: note.id, event_id: note.eventId }]);
    expect(await letterOf(note.eventId)).toBeUndefined();
    // nothing is left to redrive: a second run publishes nothing
    expect(await redriveDeadLetters(svc.deps.bus, { consumer: 'probe-noted', orgId: 7 })).toEqual([]);
  });

  it('a dead-lettered event is terminated in a form the running NATS server understands: no longer pending, never redelivered (issue 52)', async () => {
    const bus = svc.deps.bus;
    const stream = bus.streamName(streamForSubject('sales.probe.noted'));
    const durable = bus.durableName('probe-noted');
    const note = await stuckNote(12, 'dead for good');
    const letter = await eventually(() => letterOf(note.eventId), 15_000, 100);
    // `+TERM <reason>` is not understood by nats-server 2.9 (what CI runs): the message stayed
    // pending until its ack wait (30 s) ran out and came back, a new letter every time
    const settled = await eventually(async () => {
      const info = await bus.jsm.consumers.info(stream, durable);
      return info.num_ack_pending === 0 && info.num_pending === 0 ? info : undefined;
    }, 10_000, 100);
    expect(settled.num_redelivered).toBeGreaterThanOrEqual(0);
    const copies = (await listDeadLetters(bus, { service: 'probe' })).filter((l) => l.eventId === note.eventId);
    expect(copies.map((l) => l.seq)).toEqual([letter.seq]);
    failures.set('dead for good', 0);
    await redriveDeadLetters(bus, { orgId: 12 });
  });

  it('a filter leaves the other letters alone, and one redriven while its cause remains is dead-lettered anew', async () => {
    const a = await stuckNote(7, 'org seven stuck');
    const b = await stuckNote(8, 'org eight stuck');
    const first = await eventually(async () => {
      const [la, lb] = await Promise.all([letterOf(a.eventId), letterOf(b.eventId)]);
      return la && lb ? { a: la, b: lb } : undefined;
    }, 15_000, 100);
    expect(first.b.orgId).toBe(8);

    // organisation 8's letter goes back while its consumer still fails: it comes back, as a new letter
    const again = await redriveDeadLetters(svc.deps.bus, { orgId: 8 });
    expect(again.map((o) => [o.letter.seq, o.redriven])).toEqual([[first.b.seq, true]]);
    const back = await eventually(async () => {
      const l = await letterOf(b.eventId);
      return l && l.seq !== first.b.seq ? l : undefined;
    }, 15_000, 100);
    expect(back).toMatchObject({ orgId: 8, consumer: 'probe-noted' });
    expect(await letterOf(a.eventId)).toMatchObject({ seq: first.a.seq }); // untouched

    failures.set('org seven stuck', 0);
    failures.set('org eight stuck', 0);
    const all = await redriveDeadLetters(svc.deps.bus, { service: 'probe' });
    expect(all.map((o) => o.letter.eventId).sort()).toEqual([a.eventId, b.eventId].sort());
    await eventually(async () => (await effectsOf(7, a.id)).length > 0 && (await effectsOf(8, b.id)).length > 0, 10_000, 100);
    await new Promise((r) => setTimeout(r, 500));
    expect(await effectsOf(7, a.id)).toHaveLength(1);
    expect(await effectsOf(8, b.id)).toHaveLength(1);
  });

  it('npm run dead-letters lists them, redrives chosen ones, and a dry run changes nothing', async () => {
    const note = await stuckNote(9, 'operator will redrive');
    const letter = await eventually(() => letterOf(note.eventId), 15_000, 100);

    const listed = await cli('list', '--service', 'probe', '--org', '9');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${letter.seq}\t`);
    expect(listed.stdout).toContain(`probe-noted\tsales.probe.noted.9\t${note.eventId}\tfailed after 2 deliveries`);
    expect(listed.stdout).toMatch(/^1 dead letter$/m);

    failures.set('operator will redrive', 0);
    const dry = await cli('redrive', '--seq', String(letter.seq), '--dry-run');
    expect(dry.stdout).toMatch(/^1 dead letter would be redriven \(dry run\)$/m);
    await new Promise((r) => setTimeout(r, 300));
    expect(await effectsOf(9, note.id)).toEqual([]);
    expect(await letterOf(note.eventId)).toBeDefined();

    const done = await cli('redrive', '--seq', String(letter.seq), '--json');
    expect(done.code).toBe(0);
    const outcomes = JSON.parse(done.stdout) as Array<{ redriven: boolean; letter: { seq: number; eventId: string } }>;
    expect(outcomes).toEqual([expect.objectContaining({ redriven: true, letter: expect.objectContaining({ seq: letter.seq, eventId: note.eventId }) })]);
    await eventually(async () => (await effectsOf(9, note.id)).length === 1, 10_000, 100);

    const wrong = await cli('redrive', '--org', 'nine');
    expect(wrong.code).toBe(2);
  });

  it('the service reports how many of its letters wait (dead_letters_kept), counted again as soon as one is added', async () => {
    const kept = async () => Number(/^ledgerline_dead_letters_kept (\d+)$/m.exec(await (await fetch(`${svc.url}/metrics`)).text())?.[1]);
    const before = (await listDeadLetters(svc.deps.bus, { service: 'probe' })).length;
    expect(await countDeadLetters(svc.deps.bus, 'probe')).toBe(before);
    const note = await stuckNote(11, 'counted while it waits');
    await eventually(() => letterOf(note.eventId), 15_000, 100);
    expect(await countDeadLetters(svc.deps.bus, 'probe')).toBe(before + 1);
    expect(await countDeadLetters(svc.deps.bus, 'another-service')).toBe(0);
    // the dead-lettering itself asks for a new count (letters redriven or discarded since are
    // seen at the next periodic one): no need to wait for that
    await eventually(async () => (await kept()) === before + 1, 5000, 100);

    failures.set('counted while it waits', 0);
    await redriveDeadLetters(svc.deps.bus, { orgId: 11 });
    expect(await countDeadLetters(svc.deps.bus, 'probe')).toBe(before);
    await eventually(async () => (await effectsOf(11, note.id)).length === 1, 10_000, 100);
  });

  it('a deployment where nothing was ever dead-lettered (no DLQ stream yet) has none: not an error', async () => {
    const fresh = await EventBus.connect(loadConfig(baseConfigSchema, { ...env, NATS_SUBJECT_PREFIX: `nodlq${Date.now()}.` }), 'dead-letters-test', createLogger('test', 'error'));
    try {
      expect(await listDeadLetters(fresh)).toEqual([]);
      expect(await countDeadLetters(fresh, 'probe')).toBe(0);
      expect(await redriveDeadLetters(fresh)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('discard removes a letter without applying it, and refuses to run without naming which', async () => {
    const note = await stuckNote(10, 'never to be applied');
    const letter = await eventually(() => letterOf(note.eventId), 15_000, 100);
    failures.set('never to be applied', 0); // even a consumer that could apply it now never sees it again

    const unnamed = await cli('discard');
    expect(unnamed.code).toBe(2);
    expect(await letterOf(note.eventId)).toBeDefined();

    const dry = await cli('discard', '--org', '10', '--dry-run');
    expect(dry.stdout).toMatch(/^1 dead letter would be discarded \(dry run\)$/m);
    expect(await letterOf(note.eventId)).toBeDefined();

    const done = await cli('discard', '--seq', String(letter.seq));
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^1 discarded$/m);
    expect(await letterOf(note.eventId)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 500));
    expect(await effectsOf(10, note.id)).toEqual([]);
  });
});
