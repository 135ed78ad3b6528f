import type { AuditEvent, AuditEventListQuery } from '@ledgerline/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows } from '../db/orm.js';
import type { AuditContentRow } from './audit-chain.js';

/** A record as the list reads it: the chained content, with its JSON parsed and its place in the chain. */
interface AuditRow extends Omit<AuditContentRow, 'recorded_at' | 'before' | 'after' | 'changed_fields'> {
  recorded_at: Date | string;
  changed_fields: string[];
  before: Record<string, unknown> | unknown[] | null;
  after: Record<string, unknown> | unknown[] | null;
  seq: string | null;
  hash: string | null;
  total: string;
}

/** One service's records of an organisation, newest first, filtered; `limit` from the top (the asker merges the services' pages). */
export async function listAuditEvents(
  em: EntityManager,
  service: AuditEvent['service'],
  orgId: number,
  q: Omit<AuditEventListQuery, 'from' | 'take' | 'service'> & { limit: number },
): Promise<{ total: number; events: AuditEvent[] }> {
  const conditions = ['org_id = ?'];
  const params: unknown[] = [orgId];
  const add = (sql: string, v: unknown) => {
    conditions.push(sql);
    params.push(v);
  };
  if (q.resource_type) add('resource_type = ?', q.resource_type);
  if (q.resource_id) add('resource_id = ?', q.resource_id);
  if (q.credential_id) add('credential_id = ?', q.credential_id);
  if (q.operation) add('operation = ?', q.operation);
  if (q.since) add('recorded_at >= ?::timestamptz', q.since);
  if (q.until) add('recorded_at < ?::timestamptz', q.until);
  const rows = await sqlRows<AuditRow>(
    em,
    `select id, recorded_at, credential_type, credential_id, request_id, operation, method, path, resource_type, resource_id, status, changed_fields,
       before, after, seq, hash, count(*) over () as total
     from kit_audit_events where ${conditions.join(' and ')} order by recorded_at desc, id desc limit ?`,
    [...params, q.limit],
  );
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && q.limit === 0) {
    const [c] = await sqlRows<{ n: string }>(em, `select count(*) as n from kit_audit_events where ${conditions.join(' and ')}`, params);
    total = Number(c.n);
  }
  return {
    total,
    events: rows.map((r) => ({
      id: `${service}:${String(r.id)}`,
      service,
      recorded_at: new Date(r.recorded_at).toISOString(),
      credential: { type: r.credential_type, id: r.credential_id },
      request_id: r.request_id,
      operation: r.operation,
      method: r.method,
      path: r.path,
      resource: { type: r.resource_type, id: r.resource_id },
      status: r.status,
      changed_fields: r.changed_fields ?? [],
      before: r.before ?? null,
      after: r.after ?? null,
      seq: r.seq === null ? null : Number(r.seq),
      hash: r.hash?.trim() ?? null,
    })),
  };
}
