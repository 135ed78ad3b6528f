import type { EntityManager } from '@mikro-orm/postgresql';
import { formatNumber, parseMask, seriesPeriodKey } from '@ledgerline/documents';
import type { PurchaseKind } from '../db/entities.js';

/** Default numbering series of the purchase side (DESIGN §4): own number per kind, restarting yearly. */
export const SERIES_MASKS: Record<PurchaseKind, string> = {
  bill: 'BILL{YYYY}{#####}',
  vendor_credit: 'VC{YYYY}{#####}',
};

/**
 * The next number of the kind's series for `date`. The counter row is incremented with an upsert,
 * which locks it until the surrounding transaction ends: concurrent documents wait for each other,
 * and a rolled-back document gives its number back, so the series stays gap-free.
 */
export async function allocateNumber(em: EntityManager, orgId: number, kind: PurchaseKind, date: string): Promise<string> {
  const mask = parseMask(SERIES_MASKS[kind]);
  const period = seriesPeriodKey(mask, date);
  const [row] = (await em.getConnection().execute(
    `insert into numbering_counters (org_id, series, period, last_value) values (?, ?, ?, 1)
     on conflict (org_id, series, period) do update set last_value = numbering_counters.last_value + 1
     returning last_value`,
    [orgId, kind, period],
    'all',
    em.getTransactionContext(),
  )) as Array<{ last_value: number | string }>;
  return formatNumber(mask, date, String(row.last_value));
}
