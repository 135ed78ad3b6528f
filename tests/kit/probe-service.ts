import { EntitySchema } from '@mikro-orm/core';
import { z } from 'zod';
import type { ServiceName } from '@ledgerline/contracts';
import { closeAfterSending, transactionConnection } from '../support/connection-faults.js';
import { ConflictError, caller, defineService, findAndCount, isUniqueViolation, parseOrThrow, prepareEvent, respond, sqlMigration, sqlRows, PoisonMessageError } from '@ledgerline/service-kit';

/**
 * A minimal service used to prove the kit's guarantees (outbox, inbox, idempotency) against the
 * real Postgres and NATS. It stores notes and announces each on `sales.probe.noted`; its consumer
 * records one effect row per note it hears about.
 */
interface Note {
  id: number;
  orgId: number;
  text: string;
}
interface Effect {
  id: number;
  orgId: number;
  noteId: number;
  eventId: string;
}
const NoteSchema = new EntitySchema<Note>({
  name: 'Note',
  tableName: 'notes',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    text: { type: 'string' },
  },
});
const EffectSchema = new EntitySchema<Effect>({
  name: 'Effect',
  tableName: 'effects',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    noteId: { type: 'number', fieldName: 'note_id' },
    eventId: { type: 'string', fieldName: 'event_id' },
  },
});

export const PROBE_SUBJECT = 'sales.probe.noted';
/** Versions of a resource, handled by a concurrent consumer that must keep each resource's order. */
export const VERSIONED_SUBJECT = 'sales.probe.versioned';
/** Events handled by a consumer whose concurrent messages share one commit (`sharedCommit`). */
export const BATCHED_SUBJECT = 'sales.probe.batched';
/**
 * Events handled by a consumer that applies them in batches (`handleBatch`); each applied one is
 * echoed on `BATCH_ECHO_SUBJECT`. Texts: `refuse…` is refused by the batch on its first delivery,
 * `single…` is handed to `handle`, `break…` makes the whole batch fail (and is poison alone).
 */
export const BATCH_APPLIED_SUBJECT = 'sales.probe.batch_applied';
export const BATCH_ECHO_SUBJECT = 'sales.probe.batch_echoed';
/** Test control: notes whose text starts with this fail in the consumer the first N times. */
export const failures = new Map<string, number>();
const failedOnce = new Set<string>();

/**
 * Test control: the database connection of a request is lost on purpose. `before_commit` ends
 * the request's session from another connection once it has written (its COMMIT is then never
 * sent); `at_commit` closes the socket right after the COMMIT was sent, so the server commits
 * but its answer is lost (`at_commit_reset`: the socket fails with ECONNRESET instead);
 * `at_write` does that to a request's last write, which commits itself.
 */
const LOSE = z.enum(['before_commit', 'at_commit', 'at_commit_reset', 'at_write']).optional();

export const probeService = defineService({
  name: 'probe',
  defaultPort: 0,
  stream: 'SALES',
  entities: [NoteSchema, EffectSchema],
  // the one write whose audit record the kit keeps (decision 211): a service outside the shared route table names it
  routeTable: [
    { method: 'POST', path: '/notes/recorded', service: 'probe' as ServiceName, scope: 'sales', operationId: 'recordNote', summary: 'A note whose write is audited', tag: 'Probe' },
  ],
  migrations: [
    sqlMigration(
      'probe_0001',
      `create table notes (id bigserial primary key, org_id bigint not null, text text not null);
       create table effects (id bigserial primary key, org_id bigint not null, note_id bigint not null, event_id text not null);`,
    ),
    sqlMigration('probe_0002', `alter table effects add column tx bigint;`),
    sqlMigration('probe_0003', `alter table effects add column via text;`),
  ],
  routes: (app, deps) => {
    // raw routes begin the request's transaction as served endpoints do (`serveEndpoints`), so a
    // note and its event are written together
    app.post('/v1/notes', async (c) => {
      await c.get('beginOwn')?.();
      const auth = caller(c);
      const { text, delay_ms, lose, quiet } = parseOrThrow(
        z.object({ text: z.string().min(1), delay_ms: z.number().int().max(5000).optional(), lose: LOSE, quiet: z.boolean().optional() }),
        c.get('body'),
      );
      const em = c.get('em');
      const note = em.create(NoteSchema, { orgId: auth.orgId, text });
      await em.flush();
      // `quiet`: a write that announces nothing (its lost commit has no events to prove it by)
      if (!quiet) await deps.emit(em, { subject: PROBE_SUBJECT, orgId: auth.orgId, resource: String(note.id), data: { note_id: note.id, text } });
      if (delay_ms) await new Promise((r) => setTimeout(r, delay_ms));
      if (lose === 'at_commit' || lose === 'at_commit_reset') closeAfterSending(/^COMMIT/i, await transactionConnection(em), lose === 'at_commit' ? 'end' : 'reset');
      if (lose === 'before_commit') {
        const conn = await transactionConnection(em);
        const client = conn as unknown as { processID: number; _queryable: boolean };
        await sqlRows(deps.orm.em.fork(), 'select pg_terminate_backend(?)', [client.processID]);
        // until the driver has seen its session end
        for (let i = 0; i < 100 && client._queryable; i++) await new Promise((r) => setTimeout(r, 20));
      }
      return respond(c, { id: note.id, text });
    });
    // a note, then a statement that runs `seconds` (the statement timeout's subject)
    app.post('/v1/notes/slow', async (c) => {
      await c.get('beginOwn')?.();
      const auth = caller(c);
      const { text, seconds } = parseOrThrow(z.object({ text: z.string().min(1), seconds: z.number().min(0).max(10) }), c.get('body'));
      const em = c.get('em');
      const note = em.create(NoteSchema, { orgId: auth.orgId, text });
      await em.flush();
      await sqlRows(em, 'select pg_sleep(?)', [seconds]);
      return respond(c, { id: note.id, text });
    });
    // a request's last write (`writeLast`): the note, after its event; says whether the note was
    // committed when the write returned (true: it went alone with its event, no transaction open)
    app.post('/v1/notes/last', async (c) => {
      const auth = caller(c);
      const { text, id: given, twice, lose } = parseOrThrow(
        z.object({ text: z.string().min(1), id: z.number().int().positive().optional(), twice: z.boolean().optional(), lose: LOSE }),
        c.get('body'),
      );
      if (lose === 'at_write') closeAfterSending(/with last_write as \(insert into notes/);
      const em = c.get('em');
      const id = given ?? (await sqlRows<{ id: number }>(em, `select nextval('notes_id_seq')::bigint as id`))[0].id;
      // "aside": the probe's consumer passes over it, so these notes have no effects
      c.get('emitAtCommit')!(em, prepareEvent('probe', { subject: PROBE_SUBJECT, orgId: auth.orgId, resource: `last-${id}`, data: { note_id: id, text: `aside ${text}` } }));
      try {
        await c.get('writeLast')!(em, 'insert into notes (id, org_id, text) values (?, ?, ?) returning id', [id, auth.orgId, text]);
      } catch (e) {
        if (isUniqueViolation(e)) throw new ConflictError(`note ${id} exists`, 'duplicate_note');
        throw e;
      }
      // a handler bug: a second write after the last one (the kit must refuse it, not commit it alone)
      if (twice) await c.get('writeLast')!(em, 'insert into notes (id, org_id, text) values (?, ?, ?) returning id', [id + 1_000_000, auth.orgId, `${text} again`]);
      const seen = await sqlRows(deps.orm.em.fork(), 'select 1 from notes where id = ?', [id]);
      return respond(c, { id, committed_at_once: seen.length === 1 });
    });
    // an audited last write (decision 255): `declare` gives the kit the answer with the write, which
    // then commits alone with its event and its audit record; without it the kit runs the write in
    // the request's transaction and records the answer made after it, in that transaction
    app.post('/v1/notes/recorded', async (c) => {
      const auth = caller(c);
      const { text, declare, id: given } = parseOrThrow(z.object({ text: z.string().min(1), declare: z.boolean(), id: z.number().int().positive().optional() }), c.get('body'));
      const em = c.get('em');
      const id = given ?? (await sqlRows<{ id: number }>(em, `select nextval('notes_id_seq')::bigint as id`))[0].id;
      c.get('emitAtCommit')!(em, prepareEvent('probe', { subject: PROBE_SUBJECT, orgId: auth.orgId, resource: `last-${id}`, data: { note_id: id, text: `aside ${text}` } }));
      const answer = { id, text };
      try {
        await c.get('writeLast')!(em, 'insert into notes (id, org_id, text) values (?, ?, ?) returning id', [id, auth.orgId, text], declare ? { answer } : undefined);
      } catch (e) {
        if (isUniqueViolation(e)) throw new ConflictError(`note ${id} exists`, 'duplicate_note');
        throw e;
      }
      if (declare) return respond(c, answer);
      const seen = await sqlRows(deps.orm.em.fork(), 'select 1 from notes where id = ?', [id]);
      return respond(c, { ...answer, committed_at_once: seen.length === 1 });
    });
    app.get('/v1/notes/:id', async (c) => {
      caller(c);
      const note = await c.get('em').findOne(NoteSchema, { id: Number(c.req.param('id')) });
      if (!note) return c.json({ missing: true }, 404);
      return respond(c, { id: note.id, text: note.text });
    });
    app.get('/v1/notes', async (c) => {
      caller(c);
      const [rows, total] = await findAndCount(c.get('em'), NoteSchema, {});
      return respond(c, { total, ids: rows.map((r) => r.id) });
    });
    // many events at once, for the consumer that shares commits; texts starting with fail-once fail the first time
    app.post('/v1/batched', async (c) => {
      await c.get('beginOwn')?.();
      const auth = caller(c);
      const { texts } = parseOrThrow(z.object({ texts: z.array(z.string()).max(1000) }), c.get('body'));
      const em = c.get('em');
      for (const [i, text] of texts.entries()) {
        await deps.emit(em, { subject: BATCHED_SUBJECT, orgId: auth.orgId, resource: `b${i}`, data: { note_id: 100_000 + i, text } });
      }
      return respond(c, { emitted: texts.length });
    });
    app.get('/v1/batched-effects', async (c) => {
      caller(c);
      const rows = await sqlRows<{ note_id: string; tx: string }>(c.get('em'), 'select note_id, tx from effects where note_id >= 100000 order by note_id');
      return respond(c, rows.map((r) => ({ note_id: Number(r.note_id), tx: r.tx })));
    });
    app.post('/v1/batch-applied', async (c) => {
      await c.get('beginOwn')?.();
      const auth = caller(c);
      const { texts } = parseOrThrow(z.object({ texts: z.array(z.string()).max(1000) }), c.get('body'));
      const em = c.get('em');
      for (const [i, text] of texts.entries()) {
        await deps.emit(em, { subject: BATCH_APPLIED_SUBJECT, orgId: auth.orgId, resource: `a${i}`, data: { note_id: 200_000 + i, text } });
      }
      return respond(c, { emitted: texts.length });
    });
    app.get('/v1/batch-applied-effects', async (c) => {
      caller(c);
      const em = c.get('em');
      const effects = await sqlRows<{ note_id: string; tx: string; via: string }>(em, 'select note_id, tx, via from effects where note_id >= 200000 order by note_id, id');
      const echoes = await sqlRows<{ note_id: number }>(em, "select (envelope::jsonb->'data'->>'note_id')::int as note_id from kit_outbox where subject = ? order by 1", [BATCH_ECHO_SUBJECT]);
      const claims = await sqlRows<{ n: number }>(em, "select count(*)::int as n from kit_inbox where consumer = 'probe-batch-applied'");
      return respond(c, { effects: effects.map((r) => ({ note_id: Number(r.note_id), tx: r.tx, via: r.via })), echoes: echoes.map((r) => r.note_id), claims: claims[0].n });
    });
    app.get('/v1/effects', async (c) => {
      caller(c);
      const rows = await c.get('em').find(EffectSchema, {}, { orderBy: { id: 'asc' } });
      return respond(c, rows.map((r) => ({ note_id: r.noteId, event_id: r.eventId })));
    });
  },
  consumers: () => [
    {
      name: 'probe-noted',
      subject: PROBE_SUBJECT,
      // notes marked "aside" do not concern the consumer: acknowledged without a transaction
      relevant: async (event) => !(event.data as { text: string }).text.startsWith('aside'),
      handle: async ({ em }, event) => {
        const data = event.data as { note_id: number; text: string };
        if (data.text.startsWith('poison')) throw new PoisonMessageError('cannot ever apply this note');
        const left = failures.get(data.text) ?? 0;
        if (left > 0) {
          failures.set(data.text, left - 1);
          // `db-lost…`: the database session ends under the handler, as in a restart of Postgres
          if (data.text.startsWith('db-lost')) await sqlRows(em, 'select pg_terminate_backend(pg_backend_pid())');
          throw new Error('simulated crash before commit');
        }
        em.create(EffectSchema, { orgId: Number(event.orgid), noteId: data.note_id, eventId: event.id });
        await em.flush();
      },
    },
    {
      name: 'probe-versioned',
      subject: VERSIONED_SUBJECT,
      concurrency: 8,
      handle: async ({ em }, event) => {
        const data = event.data as { note_id: number; delay_ms: number };
        await new Promise((r) => setTimeout(r, data.delay_ms));
        em.create(EffectSchema, { orgId: Number(event.orgid), noteId: data.note_id, eventId: event.id });
        await em.flush();
      },
    },
    {
      name: 'probe-batched',
      subject: BATCHED_SUBJECT,
      concurrency: 16,
      sharedCommit: true,
      handle: async ({ em }, event) => {
        const data = event.data as { note_id: number; text: string };
        // written first, so a failure after it shows that its savepoint took the row back
        await sqlRows(em, 'insert into effects (org_id, note_id, event_id, tx) values (?, ?, ?, txid_current())', [Number(event.orgid), data.note_id, event.id]);
        if (data.text.startsWith('fail-once') && !failedOnce.has(event.id)) {
          failedOnce.add(event.id);
          throw new Error('simulated failure after a write');
        }
      },
    },
    {
      name: 'probe-batch-applied',
      subject: BATCH_APPLIED_SUBJECT,
      concurrency: 16,
      sharedCommit: true,
      handle: async ({ em, emit }, event) => {
        const data = event.data as { note_id: number; text: string };
        if (data.text.startsWith('break')) throw new PoisonMessageError('this note breaks any batch it is in');
        await sqlRows(em, "insert into effects (org_id, note_id, event_id, tx, via) values (?, ?, ?, txid_current(), 'single')", [Number(event.orgid), data.note_id, event.id]);
        await emit({ subject: BATCH_ECHO_SUBJECT, resource: event.subject, data: { note_id: data.note_id } });
      },
      handleBatch: async ({ em, orgId }, items) => {
        const text = (i: number) => (items[i].event.data as { text: string }).text;
        const results = items.map((item, i) =>
          text(i).startsWith('refuse') && item.deliveryCount === 1 ? { error: new Error('refused by the batch') } : text(i).startsWith('single') ? ('single' as const) : ('applied' as const),
        );
        const applied = items.filter((_, i) => results[i] === 'applied');
        // written before the failure, so a batch that fails shows whether its rows went with it
        await sqlRows(em, "insert into effects (org_id, note_id, event_id, tx, via) select ?, unnest(?::bigint[]), unnest(?::text[]), txid_current(), 'batch'", [
          orgId,
          applied.map((it) => (it.event.data as { note_id: number }).note_id),
          applied.map((it) => it.event.id),
        ]);
        if (items.some((_, i) => text(i).startsWith('break'))) throw new Error('the batch statement failed');
        for (const it of applied) it.emit({ subject: BATCH_ECHO_SUBJECT, resource: it.event.subject, data: { note_id: (it.event.data as { note_id: number }).note_id } });
        return results;
      },
    },
  ],
});
