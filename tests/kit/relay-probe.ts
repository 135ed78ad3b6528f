import { expect } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { INTERNAL_HEADERS, type RunningService, type ServiceDefinition } from '@ledgerline/service-kit';
import { eventually, startTestService } from '../support/stack.js';

/* What the tests of relays in replicas ask of the probe service, its metrics and its stream. */

/** Writes a note through a replica; its id. */
export async function noteThrough(svc: RunningService, orgId: number, text: string): Promise<number> {
  const res = await fetch(`${svc.url}/v1/notes`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.orgId]: String(orgId), [INTERNAL_HEADERS.scopes]: 'admin', 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: number }).id;
}

/** Whether the replica's relay leads (its `outbox_relay_leading` gauge). */
export const leading = async (svc: RunningService): Promise<boolean> => /^ledgerline_outbox_relay_leading 1$/m.test(await (await fetch(`${svc.url}/metrics`)).text());

/** The note ids of every event in the probe's stream, in stream order. */
export async function publishedNotes(nc: NatsConnection, subjectPrefix: string): Promise<number[]> {
  const jsm = await jetstreamManager(nc);
  const stream = `${subjectPrefix.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}SALES`;
  const info = await jsm.streams.info(stream);
  const ids: number[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq });
    if (m) ids.push((m.json() as { data: { note_id: number } }).data.note_id);
  }
  return ids;
}

/** Waits until exactly one of two replicas leads; the leader first. */
export async function leaderOf(a: RunningService, b: RunningService): Promise<[RunningService, RunningService]> {
  await eventually(async () => [await leading(a), await leading(b)].filter(Boolean).length === 1, 3000);
  return (await leading(a)) ? [a, b] : [b, a];
}

/** Two replicas of the probe service on one database and stream, and a NATS connection to read the stream. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any service definition
export async function twoReplicas(def: ServiceDefinition<any, any>, env: Record<string, string>) {
  const a = await startTestService(def, env);
  const b = await startTestService(def, env);
  const nc = await connect({ servers: env.NATS_URL });
  return {
    a,
    b,
    nc,
    close: async () => {
      await a.close();
      await b.close();
      await nc.close();
    },
  };
}
