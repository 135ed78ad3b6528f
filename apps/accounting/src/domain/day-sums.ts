import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { sqlRows, type Logger } from '@ledgerline/service-kit';

/*
 * The ledger's sums per organisation, book, day and account (decision 215): the folded balances
 * and the deltas not yet folded, read together in one statement, so a report sees each row its
 * snapshot sees exactly once. Reports that sum amounts read these; what lists rows reads the rows.
 */

export interface DaySums {
  /** A derived table `r` (date_posting, gl_account_number, debit, credit, lines) of the sums where `where` holds. */
  from: string;
  /** The parameters of `from`: the condition's, once for each of the two tables. */
  params: (whereParams: readonly unknown[]) => unknown[];
}

/** The day sums where `where` holds; `where` names their columns as `r.org_id`, `r.book_id`, `r.date_posting`, `r.gl_account_number`. */
export function daySums(where: string): DaySums {
  return {
    from: `(select r.date_posting, r.gl_account_number, r.debit, r.credit, r.lines from ledger_day_balances r where ${where}
            union all
            select r.date_posting, r.gl_account_number, r.debit, r.credit, r.lines from ledger_day_deltas r where ${where}) r`,
    params: (whereParams) => [...whereParams, ...whereParams],
  };
}

/**
 * Folds the deltas into the balances, `batch` at a time, until fewer than a batch remain; answers
 * how many were folded (0 when another replica is folding). Each batch is its own transaction.
 */
export async function foldDaySums(em: EntityManager, batch = 20_000): Promise<number> {
  let folded = 0;
  for (;;) {
    const [{ n }] = await sqlRows<{ n: number }>(em, 'select ledger_day_balances_compact(?) as n', [batch]);
    folded += n;
    if (n < batch) return folded;
  }
}

/** Folds the day sums every `everyMs` until stopped (the accounting service's background job). */
export function startDaySumsFolding(orm: MikroORM, everyMs: number, log: Logger): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = foldDaySums(orm.em.fork())
      .catch((err) => log.warn('folding the ledger day sums failed; will retry', { err: String(err) }))
      .finally(() => {
        running = null;
      });
  }, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
