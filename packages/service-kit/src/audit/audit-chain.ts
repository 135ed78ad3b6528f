import { createHash } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { sqlRows } from '../db/orm.js';
import { Pump } from '../events/pump.js';
import type { Logger } from '../logger.js';

/*
 * The audit records of each organisation form a hash chain (decision 211): record n holds the hash
 * of record n − 1 and its own hash over that and its content, and kit_audit_heads keeps where each
 * chain ends. The chain is made by one replica at a time right after the records commit, not in the
 * writes' transactions: a write does not wait for its organisation's other writes to take the next
 * place. A record changed afterwards no longer matches its hash, one deleted leaves a gap in the
 * sequence, one cut off the end no longer reaches the head.
 */

const GENESIS = '0'.repeat(64);
const BATCH = 500;

/** The columns a record's hash covers, as text Postgres writes the same way every time. */
export const AUDIT_CONTENT_COLUMNS = `id, org_id, to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as recorded_at, credential_type, credential_id,
  request_id, operation, method, path, resource_type, resource_id, status, before::text as before, after::text as after, changed_fields::text as changed_fields`;

export interface AuditContentRow {
  id: string | number;
  org_id: string | number;
  recorded_at: string;
  credential_type: string;
  credential_id: string;
  request_id: string;
  operation: string;
  method: string;
  path: string;
  resource_type: string;
  resource_id: string | null;
  status: number;
  before: string | null;
  after: string | null;
  changed_fields: string;
}

/** The hash of a record: SHA-256 over the previous hash and the record's content. */
export function auditHash(prevHash: string, r: AuditContentRow): string {
  const content = [
    String(r.id),
    String(r.org_id),
    r.recorded_at,
    r.credential_type,
    r.credential_id,
    r.request_id,
    r.operation,
    r.method,
    r.path,
    r.resource_type,
    r.resource_id,
    String(r.status),
    r.before,
    r.after,
    r.changed_fields,
  ];
  return createHash('sha256').update(prevHash).update('\n').update(JSON.stringify(content)).digest('hex');
}

const LOCK = "select pg_try_advisory_xact_lock(hashtextextended('kit:audit-chain', 0)) as locked";

/** Chains the records committed since the last pass, in the order they are found (id order). */
export class AuditChainer extends Pump {
  constructor(
    private readonly orm: MikroORM,
    log: Logger,
    pollMs = 1000,
  ) {
    super({ idleMs: pollMs, what: 'audit chain' }, log);
  }

  protected async pass(): Promise<boolean> {
    return this.orm.em.fork().transactional(async (em) => {
      const [{ locked }] = await sqlRows<{ locked: boolean }>(em, LOCK);
      if (!locked) return false;
      const rows = await sqlRows<AuditContentRow>(em, `select ${AUDIT_CONTENT_COLUMNS} from kit_audit_events where hash is null order by id limit ?`, [BATCH]);
      if (!rows.length) return false;
      const orgs = [...new Set(rows.map((r) => Number(r.org_id)))];
      const heads = new Map(
        (await sqlRows<{ org_id: string; last_seq: string; last_hash: string }>(em, 'select org_id, last_seq, last_hash from kit_audit_heads where org_id = any(?::bigint[]) for update', [`{${orgs.join(',')}}`])).map(
          (h) => [Number(h.org_id), { seq: Number(h.last_seq), hash: h.last_hash }],
        ),
      );
      const updates: Array<{ id: number; seq: number; prev: string; hash: string }> = [];
      for (const r of rows) {
        const org = Number(r.org_id);
        const head = heads.get(org) ?? { seq: 0, hash: GENESIS };
        const hash = auditHash(head.hash, r);
        updates.push({ id: Number(r.id), seq: head.seq + 1, prev: head.hash, hash });
        heads.set(org, { seq: head.seq + 1, hash });
      }
      await sqlRows(
        em,
        `update kit_audit_events e set seq = u.seq, prev_hash = u.prev, hash = u.hash
           from unnest(?::bigint[], ?::bigint[], ?::text[], ?::text[]) as u(id, seq, prev, hash) where e.id = u.id`,
        [`{${updates.map((u) => u.id).join(',')}}`, `{${updates.map((u) => u.seq).join(',')}}`, `{${updates.map((u) => u.prev).join(',')}}`, `{${updates.map((u) => u.hash).join(',')}}`],
      );
      const heads2 = [...heads].filter(([org]) => orgs.includes(org));
      await sqlRows(
        em,
        `insert into kit_audit_heads (org_id, last_seq, last_hash) select * from unnest(?::bigint[], ?::bigint[], ?::text[])
           on conflict (org_id) do update set last_seq = excluded.last_seq, last_hash = excluded.last_hash, updated_at = now()`,
        [`{${heads2.map(([o]) => o).join(',')}}`, `{${heads2.map(([, h]) => h.seq).join(',')}}`, `{${heads2.map(([, h]) => h.hash).join(',')}}`],
      );
      return rows.length === BATCH;
    });
  }
}

export interface AuditVerification {
  records: number;
  chained_through: number;
  unchained: number;
  ok: boolean;
  problems: Array<{ seq: number | null; id: number | null; problem: 'hash_mismatch' | 'prev_hash_mismatch' | 'missing_record' | 'chain_cut_off' | 'not_chained' }>;
}

/**
 * Walks one organisation's chain from its first kept record to its head. `retained`: records may
 * have been deleted by retention, so a chain may start after seq 1 (an older start is not a gap).
 */
export async function verifyAuditChain(em: EntityManager, orgId: number, retained: boolean): Promise<AuditVerification> {
  const problems: AuditVerification['problems'] = [];
  const note = (p: AuditVerification['problems'][number]) => {
    if (problems.length < 50) problems.push(p);
  };
  let records = 0;
  let prevSeq: number | null = null;
  let prevHash: string | null = null;
  for (let after = 0; ; ) {
    const rows = await sqlRows<AuditContentRow & { seq: string; prev_hash: string; hash: string }>(
      em,
      `select ${AUDIT_CONTENT_COLUMNS}, seq, prev_hash, hash from kit_audit_events where org_id = ? and seq > ? order by seq limit 2000`,
      [orgId, after],
    );
    for (const r of rows) {
      const seq = Number(r.seq);
      records++;
      if (prevSeq === null) {
        if (seq !== 1 && !retained) note({ seq: 1, id: null, problem: 'missing_record' });
        if (seq === 1 && r.prev_hash !== GENESIS) note({ seq, id: Number(r.id), problem: 'prev_hash_mismatch' });
      } else {
        if (seq !== prevSeq + 1) note({ seq: prevSeq + 1, id: null, problem: 'missing_record' });
        else if (r.prev_hash !== prevHash) note({ seq, id: Number(r.id), problem: 'prev_hash_mismatch' });
      }
      if (auditHash(r.prev_hash, r) !== r.hash) note({ seq, id: Number(r.id), problem: 'hash_mismatch' });
      prevSeq = seq;
      prevHash = r.hash;
    }
    if (rows.length < 2000) break;
    after = prevSeq!;
  }
  const [head] = await sqlRows<{ last_seq: string; last_hash: string }>(em, 'select last_seq, last_hash from kit_audit_heads where org_id = ?', [orgId]);
  if (head && (Number(head.last_seq) !== prevSeq || head.last_hash !== prevHash)) note({ seq: Number(head.last_seq), id: null, problem: 'chain_cut_off' });
  if (!head && records > 0) note({ seq: null, id: null, problem: 'chain_cut_off' });
  // records the chainer should have taken by now (it runs within a second of a commit)
  const [late] = await sqlRows<{ n: string; oldest: string | null }>(
    em,
    `select count(*) as n, min(id)::text as oldest from kit_audit_events where org_id = ? and hash is null and recorded_at < now() - interval '1 minute'`,
    [orgId],
  );
  if (Number(late.n) > 0) note({ seq: null, id: Number(late.oldest), problem: 'not_chained' });
  const [unchained] = await sqlRows<{ n: string }>(em, 'select count(*) as n from kit_audit_events where org_id = ? and hash is null', [orgId]);
  return { records, chained_through: prevSeq ?? 0, unchained: Number(unchained.n), ok: problems.length === 0, problems };
}
