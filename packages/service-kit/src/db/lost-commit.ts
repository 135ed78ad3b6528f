import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows } from './orm.js';

/** How long a lost commit is looked for before its outcome is left unknown. */
const PROOF_WAIT_MS = 1000;

/**
 * Whether a transaction whose connection went during its COMMIT was committed after all, told by
 * its outbox events (decision 163): they are written in the same transaction, and kept for days
 * after they are sent, so finding them all from a new connection proves the commit. The server
 * may still be finishing it, so they are looked for a few times over a second. Not finding them
 * proves nothing (the commit might land later still): `false` leaves the outcome unknown, as does
 * a database that cannot be asked. Without events there is nothing to look for.
 */
export async function committedAfterLoss(em: EntityManager, eventIds: readonly string[], waitMs = PROOF_WAIT_MS): Promise<boolean> {
  if (eventIds.length === 0) return false;
  const until = Date.now() + waitMs;
  for (let pause = 25; ; pause = Math.min(pause * 2, 200)) {
    try {
      const [row] = await sqlRows<{ n: number }>(em, 'select count(*)::int as n from kit_outbox where event_id = any(?::uuid[])', [`{${eventIds.join(',')}}`]);
      if (row.n === eventIds.length) return true;
    } catch {
      // the database is still out of reach: keep looking while the time lasts
    }
    if (Date.now() + pause > until) return false;
    await new Promise((r) => setTimeout(r, pause));
  }
}
