#!/usr/bin/env node
// Reads one organisation's Ledgerline events from NATS JetStream, the way an integration should:
// a durable pull consumer filtered to the organisation's subjects, explicit acks, and handling
// that is idempotent by event id (delivery is at least once).
//
//   ORG_ID=42 STREAM=SALES node examples/integration/consume-events.mjs
//
// Environment: NATS_URL (default nats://127.0.0.1:4222), NATS_USER/NATS_PASSWORD or NATS_TOKEN,
// NATS_INBOX_PREFIX (the server configuration in deploy/nats gives each user its own),
// NATS_SUBJECT_PREFIX (empty unless the deployment sets one), ORG_ID, STREAM (SALES, PURCHASE,
// FINANCE or ACCOUNTING), DURABLE (default integration-<ORG_ID>), SEEN_FILE (where handled event
// ids are kept; default none: in memory), IDLE_EXIT_MS (exit after this long without a message;
// default: run until stopped).
import { readFileSync, appendFileSync, existsSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, AckPolicy, DeliverPolicy } from '@nats-io/jetstream';

const env = process.env;
const org = env.ORG_ID;
if (!/^[1-9]\d*$/.test(org ?? '')) throw new Error('ORG_ID: the organisation id, e.g. 42');
const prefix = env.NATS_SUBJECT_PREFIX ?? '';
const streamBase = env.STREAM ?? 'SALES';
const area = streamBase.toLowerCase();
const stream = `${prefix.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}${streamBase}`;
const durable = env.DURABLE ?? `integration-${org}`;
// every catalogue subject has three tokens; the organisation is the fourth
const filter = `${prefix}${area}.*.*.${org}`;
const idleExitMs = env.IDLE_EXIT_MS ? Number(env.IDLE_EXIT_MS) : 0;

const nc = await connect({
  servers: (env.NATS_URL ?? 'nats://127.0.0.1:4222').split(','),
  name: durable,
  ...(env.NATS_USER ? { user: env.NATS_USER, pass: env.NATS_PASSWORD } : {}),
  ...(env.NATS_TOKEN ? { token: env.NATS_TOKEN } : {}),
  ...(env.NATS_INBOX_PREFIX ? { inboxPrefix: env.NATS_INBOX_PREFIX } : {}),
});

// The durable consumer: created here when the user may (development), else it must already
// exist (the operator creates it; docs/integrations.md shows how) and is only bound to.
const jsm = await jetstreamManager(nc, { checkAPI: false });
const existing = await jsm.consumers.info(stream, durable).catch(() => null);
if (!existing) {
  await jsm.consumers.add(stream, {
    durable_name: durable,
    filter_subject: filter,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: 30_000_000_000,
    max_deliver: 20,
  });
} else if (existing.config.filter_subject !== filter) {
  throw new Error(`consumer ${durable} reads ${existing.config.filter_subject}, not ${filter}`);
}

// Handled event ids: a redelivered event (an ack lost, a restart) is acknowledged, not handled twice.
const seen = new Set(env.SEEN_FILE && existsSync(env.SEEN_FILE) ? readFileSync(env.SEEN_FILE, 'utf8').split('\n').filter(Boolean) : []);

function handle(event, subject) {
  // Your integration's work goes here; it must be safe to run once per event id.
  const d = event.data ?? {};
  const summary = [d.no, d.total_amount ?? d.amount, d.currency].filter((v) => v !== undefined && v !== null).join(' ');
  process.stdout.write(`${event.time} ${subject} ${event.id} ${summary}\n`);
}

const consumer = await jetstream(nc).consumers.get(stream, durable);
let idle;
const messages = await consumer.consume({ max_messages: 100 });
const armIdle = () => {
  if (!idleExitMs) return;
  clearTimeout(idle);
  idle = setTimeout(() => void messages.close(), idleExitMs);
};
armIdle();
for await (const m of messages) {
  armIdle();
  let event;
  try {
    event = JSON.parse(m.string());
  } catch {
    m.term(); // not JSON: it will never parse; keep it out of the way
    continue;
  }
  if (!seen.has(event.id)) {
    try {
      handle(event, m.subject.slice(prefix.length));
    } catch (err) {
      process.stderr.write(`event ${event.id} failed, redelivered later: ${err}\n`);
      m.nak(5000);
      continue;
    }
    seen.add(event.id);
    if (env.SEEN_FILE) appendFileSync(env.SEEN_FILE, `${event.id}\n`);
  }
  m.ack();
}
await nc.drain();
