import type { MikroORM } from '@mikro-orm/postgresql';
import { sqlRows } from './orm.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';

/**
 * Rows a table keeps only for a while: `old` is an SQL condition with one `?` for the cutoff
 * instant (rows older than `keepMs`), `key` the table's key columns.
 */
export interface RetentionRule {
  table: string;
  key: string[];
  old: string;
  keepMs: number;
}

export interface RetentionConfig {
  OUTBOX_RETENTION: number;
  INBOX_RETENTION: number;
}

/** How long an Idempotency-Key answers with its first answer (unit-of-work.ts reads 24 hours). */
const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/**
 * The kit's own tables: sent outbox rows (the stream holds the events), inbox rows (they only
 * absorb redeliveries, which come within minutes; effects that must never repeat also carry their
 * own unique key: a ledger source, a payment application, a webhook delivery), and
 * Idempotency-Keys past their 24 hours. Unsent outbox rows are never pruned.
 */
export function kitRetentionRules(c: RetentionConfig): RetentionRule[] {
  return [
    { table: 'kit_outbox', key: ['id'], old: 'sent_at is not null and sent_at < ?', keepMs: c.OUTBOX_RETENTION },
    { table: 'kit_inbox', key: ['consumer', 'event_id'], old: 'processed_at < ?', keepMs: c.INBOX_RETENTION },
    { table: 'kit_idempotency', key: ['org_id', 'credential_id', 'idem_key'], old: 'created_at < ?', keepMs: IDEMPOTENCY_WINDOW_MS },
  ];
}

/**
 * Deletes what the rules let go, in batches of `batch` rows, each its own short statement, so
 * pruning never holds locks that writes would wait for. Runs every `everyMs` (0: never by
 * itself; `pruneOnce` still works).
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private pruned: ReturnType<MetricsRegistry['counter']>;

  constructor(
    private readonly orm: MikroORM,
    private readonly rules: RetentionRule[],
    private readonly opts: { everyMs: number; batch: number },
    private readonly log: Logger,
    metrics: MetricsRegistry,
  ) {
    this.pruned = metrics.counter('retention_pruned_rows_total', 'Rows deleted after their retention, by table');
  }

  start(): void {
    if (this.opts.everyMs <= 0) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.pruneOnce()
        .catch((err) => this.log.warn('retention sweep failed; will retry', { err: String(err) }))
        .finally(() => {
          this.running = null;
        });
    }, this.opts.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One sweep over every rule; returns the rows deleted per table. */
  async pruneOnce(now = new Date()): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const rule of this.rules) {
      const cutoff = new Date(now.getTime() - rule.keepMs);
      const key = rule.key.join(', ');
      let total = 0;
      for (;;) {
        const em = this.orm.em.fork();
        const rows = await sqlRows<{ n: number }>(
          em,
          `with gone as (delete from ${rule.table} where (${key}) in (select ${key} from ${rule.table} where ${rule.old} limit ?) returning 1)
           select count(*)::int as n from gone`,
          [cutoff, this.opts.batch],
        );
        const n = rows[0]?.n ?? 0;
        total += n;
        if (n < this.opts.batch) break;
      }
      out[rule.table] = total;
      if (total) {
        this.pruned.inc({ table: rule.table }, total);
        this.log.info('retention: rows pruned', { table: rule.table, rows: total });
      }
    }
    return out;
  }
}
