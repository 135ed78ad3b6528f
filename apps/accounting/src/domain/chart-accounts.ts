import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChartAccountRequest, ChartAccountView } from '@ledgerline/contracts';
import { NotFoundError, insertRows, parseRange, sqlRows, type TenantScope } from '@ledgerline/service-kit';
import { GlAccountSchema } from '../db/entities.js';
import { DEFAULT_CHART, type ChartLocale } from './chart.js';

/*
 * The chart of accounts as an organisation sees it (decision 166): the default chart with the
 * organisation's own accounts and names laid over it. A chart is small (hundreds of accounts), so
 * it is read whole and filtered here; the defaults an organisation has not posted to yet are in
 * it although not yet stored (the ledger seeds them with its first posting).
 */

interface StoredAccount {
  id: string;
  number: string;
  name_cs: string;
  name_en: string;
  description: string | null;
}

const DEFAULT_NUMBERS = new Set(DEFAULT_CHART.map((a) => a.number));

function view(a: { id: string | number | null; number: string; name_cs: string; name_en: string; description: string | null }, locale: ChartLocale): ChartAccountView {
  return {
    id: a.id === null ? null : Number(a.id),
    number: a.number,
    name: locale === 'cs-CZ' ? a.name_cs : a.name_en,
    name_cs: a.name_cs,
    name_en: a.name_en,
    description: a.description,
    is_default: DEFAULT_NUMBERS.has(a.number),
  };
}

/** The organisation's whole chart, ordered by number as text (the trial balance's order). */
async function chartOf(scope: TenantScope, locale: ChartLocale): Promise<ChartAccountView[]> {
  const { em, orgId } = scope;
  const stored = await sqlRows<StoredAccount>(em, 'select id, number, name_cs, name_en, description from gl_accounts where org_id = ?', [orgId], { prepared: true });
  const byNumber = new Map<string, ChartAccountView>(DEFAULT_CHART.map((a) => [a.number, view({ id: null, number: a.number, name_cs: a.name['cs-CZ'], name_en: a.name['en-US'], description: null }, locale)]));
  for (const a of stored) byNumber.set(a.number, view(a, locale));
  return [...byNumber.values()].sort((a, b) => (a.number < b.number ? -1 : a.number > b.number ? 1 : 0));
}

export async function listChart(
  em: EntityManager,
  orgId: number,
  q: { account_number?: string; search?: string; from: number; take: number },
  locale: ChartLocale,
): Promise<{ rows: ChartAccountView[]; total: number }> {
  const range = parseRange('account_number', q.account_number, 'string');
  const needle = q.search?.toLocaleLowerCase('cs-CZ');
  const matching = (await chartOf({ em, orgId }, locale)).filter(
    (a) =>
      (range?.from === undefined || a.number >= range.from) &&
      (range?.to === undefined || a.number <= range.to) &&
      (!needle || [a.number, a.name_cs, a.name_en].some((t) => t.toLocaleLowerCase('cs-CZ').includes(needle))),
  );
  return { rows: matching.slice(q.from, q.from + q.take), total: matching.length };
}

export async function readChartAccount(scope: TenantScope, number: string, locale: ChartLocale): Promise<ChartAccountView> {
  const { em, orgId } = scope;
  const found = (await chartOf(scope, locale)).find((a) => a.number === number);
  if (!found) throw new NotFoundError(`Account ${number} is not in the chart (it may still be posted to; PUT names it)`, 'account_not_found');
  return found;
}

/** Adds the account, or gives an existing one (a default one too) the names and description sent. */
export async function saveChartAccount(scope: TenantScope, number: string, req: ChartAccountRequest, locale: ChartLocale): Promise<ChartAccountView> {
  const { em, orgId } = scope;
  const [saved] = (await insertRows(em, GlAccountSchema, [{ orgId, number, nameCs: req.name_cs, nameEn: req.name_en ?? req.name_cs, description: req.description ?? null }], {
    onConflict: '(org_id, number) do update set name_cs = excluded.name_cs, name_en = excluded.name_en, description = excluded.description',
    returning: ['id', 'number', 'name_cs', 'name_en', 'description'],
  })) as StoredAccount[];
  return view(saved, locale);
}
