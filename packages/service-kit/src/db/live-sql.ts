import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * A database function's or trigger's current definition, kept as a file of its own (decision
 * 233): `create or replace` statements that stand alone. The migrations that first made it stay
 * as they were (history); what runs is the file's, applied at boot whenever its text differs from
 * what was applied last.
 */
export interface LiveSql {
  /** The file's name, e.g. `ledger_insert_entry.sql`. */
  name: string;
  sql: string;
}

export function liveSqlChecksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

/**
 * Applies every definition whose checksum is not the one in force, each in a transaction of its
 * own with its checksum, on the session that holds the migration lock (after the migrations, so
 * the tables they name exist). Answers the names applied.
 */
export async function applyLiveSql(session: pg.Client, files: readonly LiveSql[]): Promise<string[]> {
  if (files.length === 0) return [];
  const { rows } = await session.query<{ name: string; checksum: string }>('select name, checksum from kit_live_sql');
  const inForce = new Map(rows.map((r) => [r.name, r.checksum]));
  const applied: string[] = [];
  for (const f of files) {
    const checksum = liveSqlChecksum(f.sql);
    if (inForce.get(f.name) === checksum) continue;
    await session.query('begin');
    try {
      await session.query(f.sql);
      await session.query(
        'insert into kit_live_sql (name, checksum) values ($1, $2) on conflict (name) do update set checksum = excluded.checksum, applied_at = now()',
        [f.name, checksum],
      );
      await session.query('commit');
    } catch (err) {
      await session.query('rollback').catch(() => undefined);
      throw new Error(`${f.name}: ${(err as Error).message}`, { cause: err });
    }
    applied.push(f.name);
  }
  return applied;
}
