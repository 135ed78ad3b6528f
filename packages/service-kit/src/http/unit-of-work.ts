import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { BusinessRuleError, CommitOutcomeUnknownError, ConflictError, ValidationError } from '../errors.js';
import { connectionLoss } from '../db/connection-loss.js';
import { TENANT_FILTER, explainEndedTransaction, sqlRows } from '../db/orm.js';
import type { AtCommitBatch, CommitGroupMember, CommitGroups } from '../db/commit-groups.js';
import { eventsInsert, eventsWrittenIn, insertPreparedEvents, type PreparedEvent } from '../events/outbox.js';
import { committedAfterLoss } from '../db/lost-commit.js';
import type { AnswerSealer, KitEnv } from './context.js';
import { answerText } from './answer-text.js';
import { auditEntryFor, auditEntryOf, auditedRouteOf, stateBefore, type AuditHook } from './audit-hook.js';
import { auditInsert, auditRow, insertAuditEntry, insertAuditRows, type AuditRow } from '../audit/audit-record.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const REPLAYED_HEADERS = ['content-type', 'location'];

function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  // a file body (bytes) is named by its digest, not spelled out byte by byte
  if (value instanceof Uint8Array) return `bytes:${createHash('sha256').update(value).digest('hex')}`;
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const keys = Object.keys(value as object).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * The query string in a canonical order (`?strict=true` and friends change what a write does, so
 * they are part of the request an Idempotency-Key names); empty without one, which keeps the
 * hashes of query-less requests what they always were.
 */
export function canonicalQuery(url: string): string {
  const params = [...new URL(url).searchParams.entries()].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  return params.length ? `?${new URLSearchParams(params).toString()}` : '';
}

interface StoredResponse {
  request_hash: string;
  response_status: number;
  response_headers: Record<string, string>;
  response_body: string;
  secret_bearing: boolean;
}

/**
 * One entity manager per request, scoped to the caller's organisation. A write request runs in
 * one database transaction that also holds its outbox events and its `Idempotency-Key` record,
 * so a retry after a crash can neither create a second document nor lose the first one's
 * answer. Any error or non-2xx answer rolls the whole request back.
 *
 * A handler may move its writes into a commit group (`c.get('commitGroup')`, numbered documents):
 * its writes and its Idempotency-Key record are then made in the group's shared transaction, and
 * the request is answered once that transaction committed; the request's own transaction keeps
 * only its reads and the key's lock.
 *
 * An Idempotency-Key is scoped to the credential that sent it. A secret-bearing answer
 * (`c.set('secretAnswer', true)`) is stored sealed with `sealer` and replayed only to that
 * credential; a service without a sealer stores no body and answers a replay with 409
 * `secret_already_shown`.
 */
/** The audit records a commit group writes together. */
const AUDIT_RECORDS: AtCommitBatch<AuditRow> = { write: insertAuditRows };

export function unitOfWork(orm: MikroORM, afterCommit: () => void, sealer?: AnswerSealer, groups?: CommitGroups, audit?: AuditHook): MiddlewareHandler<KitEnv> {
  return async (c, next) => {
    const auth = c.get('auth');
    const em = orm.em.fork({ clear: true });
    if (auth) em.setFilterParams(TENANT_FILTER, { orgId: auth.orgId });
    c.set('em', em);
    if (!WRITE_METHODS.has(c.req.method)) return next();

    const idemKey = c.req.method === 'POST' ? c.req.header('idempotency-key') : undefined;
    if (idemKey !== undefined && (idemKey.length < 1 || idemKey.length > 255)) {
      throw new ValidationError('Idempotency-Key must be 1 to 255 characters', [
        { path: 'header.Idempotency-Key', message: 'must be 1 to 255 characters', code: 'too_big' },
      ]);
    }
    const committed: Array<() => void> = [];
    c.set('afterCommit', committed);
    let member: CommitGroupMember | null = null;
    // The request's own transaction: begun at once, unless the handler defers it (it only reads
    // before it joins a commit group, so a BEGIN and a ROLLBACK would be all its transaction did)
    // and no Idempotency-Key lock must be taken first.
    let ownBegun = false;
    let ownEnded = false;
    // set when the request's last write committed itself with the request's events (`writeLast`)
    let committedAlone = false;
    const ended = () =>
      new Error(member ? 'the request joined a commit group: its writes go through the group' : 'the request wrote its last write: nothing is written after it');
    const beginOwn = async () => {
      if (ownEnded) throw ended();
      if (ownBegun) return;
      await em.begin();
      ownBegun = true;
    };
    c.set('beginOwn', beginOwn);
    const explainFailure = async (err: unknown) => {
      const own = await explainEndedTransaction(err, em);
      return own !== err || !member ? own : explainEndedTransaction(err, (member as CommitGroupMember).em);
    };
    c.set('explainFailure', explainFailure);
    // The events of the request's own transaction, written by one statement just before it
    // commits: a request announcing several facts (a matched payment: two events; a payout: one
    // per line) makes one outbox insert, not one each.
    const events: PreparedEvent[] = [];
    c.set('emitAtCommit', (target, event) => {
      if (target === em) {
        if (ownEnded) throw ended();
        events.push(event);
        return true;
      }
      const group = member as CommitGroupMember | null;
      if (group && target === group.em) {
        group.emitAtCommit(event);
        return true;
      }
      return false;
    });
    // The write route's audit record (decision 211), when the write is recorded: looked up before
    // the handler, which `writeLast` needs to know, as it needs the state before.
    const audited = audit && auth && auth.credentialType !== 'operator' ? auditedRouteOf(audit, c.req.method, c.req.path) : null;
    let before: unknown = null;
    /** The answer a last write's record was written with, when it was (decision 255). */
    let recordedAnswer: string | null = null;
    // A request that took no lock and wrote nothing before its one write (its handler deferred the
    // transaction, no Idempotency-Key) needs no transaction: the write and its events go as one
    // statement, which commits them together, instead of BEGIN, write, events and COMMIT. Its
    // audit record goes in that statement too, made from the answer the handler says it will
    // give (`answer`); a handler that cannot say has its write run in the request's transaction,
    // which the record, made from the answer once there is one, commits with (decision 255: a
    // record written after a write that committed alone could be lost with the process, and a
    // failure writing it answered an error for a write that had been made).
    c.set('writeLast', async (target, sql, params, opts) => {
      const { answer, ...sqlOpts } = opts ?? {};
      if (target !== em) return sqlRows(target, sql, params, sqlOpts);
      if (ownEnded) throw ended();
      if (audited && answer === undefined) await beginOwn();
      if (ownBegun) return sqlRows(em, sql, params, sqlOpts);
      ownEnded = true;
      const outbox = events.length ? eventsInsert(events.splice(0)) : null;
      const declared = audited ? JSON.stringify(answer) : null;
      const entry = audited && declared !== null ? auditEntryFor(c, audited, before, JSON.parse(declared), 200) : null;
      const record = entry ? auditInsert(auditRow(entry)) : null;
      const parts = [outbox ? `announced as (${outbox.sql})` : null, record ? `recorded as (${record.sql})` : null].filter(Boolean);
      // the statement commits itself: a connection lost while it was with the server leaves it unknown
      const rows = await committing(
        () =>
          parts.length
            ? sqlRows(em, `with last_write as (${sql}), ${parts.join(', ')} select * from last_write`, [...params, ...(outbox?.params ?? []), ...(record?.params ?? [])], sqlOpts)
            : sqlRows(em, sql, params, sqlOpts),
        idemKey !== undefined,
      );
      committedAlone = true;
      if (record) recordedAnswer = declared;
      return rows;
    });
    let requestHash = '';
    if (groups && auth) {
      const orgId = auth.orgId;
      c.set('commitGroup', async (lane) => {
        if (member || ownEnded) throw new Error('a request joins at most one commit group');
        if (events.length) throw new Error('a request joins a commit group before it emits events');
        // The request's own transaction has only read: end it before waiting for a turn, so no
        // connection is held while waiting (a group needs one of its own).
        ownEnded = true;
        if (ownBegun) await em.rollback();
        member = await groups.join(lane, orgId);
        if (idemKey) {
          // the key's lock ended with the own transaction: take it again in the group's, and
          // look again for an answer a request with the same key committed meanwhile
          const [lock] = await sqlRows<{ locked: boolean }>(member.em, 'select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked', [
            `idem:${orgId}:${auth.credentialId}:${idemKey}`,
          ]);
          const [stored] = lock.locked
            ? await sqlRows(member.em, `select 1 from kit_idempotency where org_id = ? and credential_id = ? and idem_key = ? and created_at > now() - interval '24 hours'`, [
                orgId,
                auth.credentialId,
                idemKey,
              ])
            : [true];
          if (stored) throw new ConflictError('A request with this Idempotency-Key is still being processed', 'idempotency_key_in_flight');
        }
        return member.em;
      });
    }
    const conn = em.getConnection();
    let done = false;
    try {
      if (idemKey && auth) {
        await beginOwn();
        requestHash = createHash('sha256')
          .update(`${c.req.method} ${c.req.path}${canonicalQuery(c.req.url)}\n${stableStringify(c.get('body') ?? null)}`)
          .digest('hex');
        const [lock] = (await conn.execute(
          'select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked',
          [`idem:${auth.orgId}:${auth.credentialId}:${idemKey}`],
          'all',
          em.getTransactionContext(),
        )) as Array<{ locked: boolean }>;
        // A stored answer is replayed whether or not the lock was had: it is read only once its
        // request committed, and replays of one key sent at once (a client's retries) each hold the
        // lock a moment, which made the others 409 though the answer was there.
        const [stored] = (await conn.execute(
          `select request_hash, response_status, response_headers, response_body, secret_bearing from kit_idempotency
            where org_id = ? and credential_id = ? and idem_key = ? and created_at > now() - interval '24 hours'`,
          [auth.orgId, auth.credentialId, idemKey],
          'all',
          em.getTransactionContext(),
        )) as StoredResponse[];
        if (stored) {
          if (stored.request_hash !== requestHash) {
            throw new BusinessRuleError(
              'This Idempotency-Key was already used with a different request',
              'idempotency_key_reused',
            );
          }
          await em.rollback();
          done = true;
          let body = stored.response_body;
          if (stored.secret_bearing) {
            if (!sealer || !body) {
              throw new ConflictError(
                'This request was already carried out and its answer held a secret that is shown only once; create a new one if it was lost',
                'secret_already_shown',
              );
            }
            body = sealer.open(body, aadOf(auth.orgId, auth.credentialId, idemKey));
          }
          return c.body(body, stored.response_status as 200, {
            ...stored.response_headers,
            'idempotent-replayed': 'true',
          });
        }
        if (!lock.locked) {
          throw new ConflictError('A request with this Idempotency-Key is still being processed', 'idempotency_key_in_flight');
        }
      }

      // the resource as it stood, read before the write takes any lock (decision 211)
      before = audited ? await stateBefore(audit!, audited, c) : null;
      await next();
      const group = member as CommitGroupMember | null;

      if (c.error || c.res.status >= 300) {
        // a handler's last write is its last fallible step: after it, nothing can be rolled back
        if (committedAlone) c.get('log').error('a request failed after its last write committed', { status: c.res.status, route: c.req.routePath });
        await group?.abort();
        if (ownBegun && !ownEnded) await em.rollback();
        done = true;
        return;
      }
      if (idemKey && auth) {
        const secret = c.get('secretAnswer') === true;
        const answer = await answerText(c.res);
        const body = !secret ? answer : sealer ? sealer.seal(answer, aadOf(auth.orgId, auth.credentialId, idemKey)) : '';
        const headers: Record<string, string> = {};
        for (const h of REPLAYED_HEADERS) {
          const v = c.res.headers.get(h);
          if (v) headers[h] = v;
        }
        // bind parameters: the stored answer is not escaped into the query text
        await sqlRows(
          group?.em ?? em,
          `insert into kit_idempotency (org_id, credential_id, idem_key, method, path, request_hash, response_status, response_headers, response_body, secret_bearing)
           values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)
           on conflict (org_id, credential_id, idem_key) do update set method = excluded.method, path = excluded.path,
             request_hash = excluded.request_hash, response_status = excluded.response_status,
             response_headers = excluded.response_headers, response_body = excluded.response_body,
             secret_bearing = excluded.secret_bearing, created_at = now()`,
          [auth.orgId, auth.credentialId, idemKey, c.req.method, c.req.path, requestHash, c.res.status, JSON.stringify(headers), body, secret],
        );
      }
      // the write's audit record, in the write's transaction (or already in its last write's statement)
      const entry = audited && recordedAnswer === null ? await auditEntryOf(c, audited, before) : null;
      if (recordedAnswer !== null && (c.res.status !== 200 || (await answerText(c.res)) !== recordedAnswer)) {
        c.get('log').error('a last write was recorded with an answer other than the one given', { status: c.res.status, route: c.req.routePath });
      }
      // in a group, written with the group's other records just before its commit: one statement for all
      if (entry && group) group.writeAtCommit(AUDIT_RECORDS, auditRow(entry));
      else if (entry) {
        await beginOwn();
        await insertAuditEntry(em, entry);
      }
      // in a group, the group's commit holds this request's writes (its own transaction only read and has ended)
      if (group) await committing(() => group.finish(), idemKey !== undefined);
      else {
        if (events.length) {
          await beginOwn();
          await insertPreparedEvents(em, events);
        }
        if (ownBegun) await commitOwn(orm, em, idemKey !== undefined, c.get('log'));
      }
      done = true;
      afterCommit();
      for (const f of committed) f();
    } catch (err) {
      // explained while the transaction is still there to ask (the rollback below lets go of it)
      throw await explainFailure(err);
    } finally {
      if (!done) {
        await (member as CommitGroupMember | null)?.abort().catch(() => undefined);
        if (ownBegun && !ownEnded) await em.rollback().catch(() => undefined);
      }
    }
  };
}

/**
 * Runs what commits a request's writes. A database connection lost while it was with the server
 * may have committed it, so that is answered as unknown rather than with the plain 503 that
 * tells a client nothing was written.
 */
export async function committing<T>(commit: () => Promise<T>, withIdempotencyKey: boolean): Promise<T> {
  try {
    return await commit();
  } catch (err) {
    // (a commit group answers its members unknown without knowing their keys: said again here with it)
    if (err instanceof CommitOutcomeUnknownError || connectionLoss(err) === 'lost') throw new CommitOutcomeUnknownError(withIdempotencyKey);
    throw err;
  }
}

/**
 * Commits the request's own transaction. A connection lost while the server had the COMMIT is
 * looked into before the request is answered unknown (decision 163): when the transaction's
 * outbox events are found from a new connection, it was committed, and the request is answered
 * as made.
 */
async function commitOwn(orm: MikroORM, em: EntityManager, withIdempotencyKey: boolean, log: { warn(msg: string, fields?: Record<string, unknown>): void }): Promise<void> {
  const written = eventsWrittenIn(em);
  try {
    await committing(() => em.commit(), withIdempotencyKey);
  } catch (err) {
    if (!(err instanceof CommitOutcomeUnknownError) || !(await committedAfterLoss(orm.em.fork(), written))) throw err;
    log.warn('the connection went during a commit; its outbox events show it was made', { events: written.length });
  }
}

function aadOf(orgId: number, credentialId: string, idemKey: string): string {
  return `idempotency:${orgId}:${credentialId}:${idemKey}`;
}
