import { insertRows, parseSort, sqlRows, type SortKey, type TenantScope } from '@ledgerline/service-kit';
import { DeliveryConditionSchema, type DeliveryCondition } from '../db/templates.entities.js';

/** The eleven Incoterms® 2020 rules (ICC), in the order the ICC lists them, with localised names. */
export const INCOTERMS_2020: ReadonlyArray<{ code: string; names: Record<'en-US' | 'cs-CZ' | 'sk-SK', string> }> = [
  { code: 'EXW', names: { 'en-US': 'Ex Works', 'cs-CZ': 'Ze závodu', 'sk-SK': 'Zo závodu' } },
  { code: 'FCA', names: { 'en-US': 'Free Carrier', 'cs-CZ': 'Vyplaceně dopravci', 'sk-SK': 'Franko dopravca' } },
  { code: 'CPT', names: { 'en-US': 'Carriage Paid To', 'cs-CZ': 'Přeprava placena do', 'sk-SK': 'Preprava platená do' } },
  { code: 'CIP', names: { 'en-US': 'Carriage and Insurance Paid To', 'cs-CZ': 'Přeprava a pojištění placeny do', 'sk-SK': 'Preprava a poistenie platené do' } },
  { code: 'DAP', names: { 'en-US': 'Delivered at Place', 'cs-CZ': 'S dodáním v místě určení', 'sk-SK': 'S dodaním na miesto určenia' } },
  { code: 'DPU', names: { 'en-US': 'Delivered at Place Unloaded', 'cs-CZ': 'S dodáním v místě určení vyloženo', 'sk-SK': 'S dodaním na miesto určenia vyložené' } },
  { code: 'DDP', names: { 'en-US': 'Delivered Duty Paid', 'cs-CZ': 'S dodáním clo placeno', 'sk-SK': 'S dodaním clo platené' } },
  { code: 'FAS', names: { 'en-US': 'Free Alongside Ship', 'cs-CZ': 'Vyplaceně k boku lodi', 'sk-SK': 'Franko k boku lode' } },
  { code: 'FOB', names: { 'en-US': 'Free on Board', 'cs-CZ': 'Vyplaceně loď', 'sk-SK': 'Franko paluba lode' } },
  { code: 'CFR', names: { 'en-US': 'Cost and Freight', 'cs-CZ': 'Náklady a přepravné', 'sk-SK': 'Náklady a prepravné' } },
  { code: 'CIF', names: { 'en-US': 'Cost, Insurance and Freight', 'cs-CZ': 'Náklady, pojištění a přepravné', 'sk-SK': 'Náklady, poistenie a prepravné' } },
];

export const DELIVERY_CONDITION_SORT_FIELDS = ['id', 'code', 'name'] as const;

/**
 * Seeds the Incoterms rules for an organisation the first time its list is read. Concurrent
 * first reads are harmless: the (org_id, code) key keeps one row per rule.
 */
export async function ensureDeliveryConditions(scope: TenantScope): Promise<void> {
  const { em, orgId } = scope;
  if ((await em.count(DeliveryConditionSchema, {})) >= INCOTERMS_2020.length) return;
  const rows = INCOTERMS_2020.map((rule, i) => ({
    orgId,
    code: rule.code,
    name: rule.names['en-US'],
    l10n: (Object.entries(rule.names) as Array<[string, string]>).map(([culture, name], k) => ({ id: k + 1, culture, name })),
    position: i + 1,
  }));
  await insertRows(em, DeliveryConditionSchema, rows, { onConflict: '(org_id, code) do nothing' });
}

/** The name in a culture: exact culture, then the same language, then the stored (English) name. */
function localName(dc: DeliveryCondition, culture: string | undefined): string {
  if (!culture) return dc.name;
  const exact = dc.l10n.find((l) => l.culture.toLowerCase() === culture.toLowerCase());
  if (exact) return exact.name;
  const lang = culture.split('-')[0].toLowerCase();
  return dc.l10n.find((l) => l.culture.split('-')[0].toLowerCase() === lang)?.name ?? dc.name;
}

/** Spec §2.11: `l10n` ids are unique across conditions (condition id × 100 + position). */
export function deliveryConditionView(dc: DeliveryCondition, culture?: string) {
  return {
    id: dc.id,
    code: dc.code,
    name: localName(dc, culture),
    l10n: dc.l10n.map((l, k) => ({ id: dc.id * 100 + k + 1, culture: l.culture, name: l.name })),
  };
}

export interface DeliveryConditionQuery {
  from: number;
  take: number;
  search?: string;
  sort?: string[];
  culture?: string;
}

/** GET /v1/settings/delivery-conditions: search over the code and every localised name; sort by id, code or name; paged. */
export async function listDeliveryConditions(scope: TenantScope, q: DeliveryConditionQuery) {
  const { em, orgId } = scope;
  await ensureDeliveryConditions(scope);
  const sort: SortKey[] = parseSort(q.sort, DELIVERY_CONDITION_SORT_FIELDS, [{ field: 'id', direction: 'asc' }]);
  const all = (await em.find(DeliveryConditionSchema, {}, { orderBy: { position: 'asc', id: 'asc' } })).map((dc) => deliveryConditionView(dc, q.culture));
  const needle = q.search?.trim().toLocaleLowerCase();
  const matching = needle
    ? all.filter((dc) => dc.code.toLocaleLowerCase().includes(needle) || dc.l10n.some((l) => l.name.toLocaleLowerCase().includes(needle)))
    : all;
  const collator = new Intl.Collator(q.culture ?? 'en-US', { sensitivity: 'base' });
  const sorted = [...matching].sort((a, b) => {
    for (const k of sort) {
      const av = a[k.field as 'id' | 'code' | 'name'];
      const bv = b[k.field as 'id' | 'code' | 'name'];
      const c = typeof av === 'number' && typeof bv === 'number' ? av - bv : collator.compare(String(av), String(bv));
      if (c !== 0) return k.direction === 'asc' ? c : -c;
    }
    return a.id - b.id;
  });
  return { rows: sorted.slice(q.from, q.from + q.take), total: sorted.length };
}
