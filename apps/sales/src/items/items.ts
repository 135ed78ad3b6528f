import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { ItemListQuery, ItemRequest, ItemSalesRateQuery, PriceListRequest } from '@ledgerline/contracts';
import { BusinessRuleError, NotFoundError, containsPattern, dec, parseSort, sqlRows, toWire, findAndCount, type Dec, type TenantScope } from '@ledgerline/service-kit';
import { ItemSchema, PriceListRateSchema, PriceListSchema, type Item, type PriceList, type PriceListRate } from '../db/entities.js';

const fixed = (v: number | string) => dec(v).toFixed();

export function itemView(i: Item) {
  return {
    id: i.id,
    sku: i.sku ?? null,
    name: i.name,
    unit: i.unit ?? null,
    sales_rate: toWire(i.salesRate),
    currency: i.currency,
    tax_rate: toWire(i.taxRate ?? null),
    gl_account: i.glAccount ?? null,
    supply: (i.supply ?? null) as 'goods' | 'services' | null,
  };
}

export async function createItem(scope: TenantScope, input: ItemRequest): Promise<Item> {
  const { em, orgId } = scope;
  const item = em.create(ItemSchema, {
    orgId,
    sku: input.sku ?? null,
    name: input.name,
    unit: input.unit ?? null,
    salesRate: fixed(input.sales_rate),
    currency: input.currency,
    taxRate: input.tax_rate == null ? null : fixed(input.tax_rate),
    glAccount: (input.gl_account as Record<string, unknown> | null | undefined) ?? null,
    supply: input.supply ?? null,
    createdAt: new Date(),
  });
  await em.flush();
  return item;
}

type CataloguedLines = { items: Array<{ item?: { id?: number | null } | null; gl_account?: unknown; supply?: 'goods' | 'services' | null }> };

/** What the catalogue says of an item that a line naming it takes unless it says so itself. */
export interface CatalogueFacts {
  gl_account: unknown;
  supply: 'goods' | 'services' | null;
}

/** The catalogue items whose revenue account or supply a document's lines take: those naming an item and lacking either. */
export function catalogueItemIds(input: CataloguedLines): number[] {
  return [...new Set(input.items.flatMap((it) => ((it.gl_account == null || it.supply == null) && it.item?.id != null ? [it.item.id] : [])))];
}

/**
 * A line naming a catalogue item (`item.id`) takes the item's `gl_account` and `supply` where it
 * names none of its own, so the ledger posts it where the catalogue says. Ids the catalogue does
 * not know are the client's own references and change nothing. `facts`: what the catalogue says
 * of each item of `catalogueItemIds(input)` that says anything (read with the document's other
 * first reads).
 */
export function withCatalogueFacts<T extends CataloguedLines>(input: T, facts: ReadonlyMap<number, CatalogueFacts>): T {
  if (facts.size === 0) return input;
  return {
    ...input,
    items: input.items.map((it) => {
      const known = it.item?.id != null ? facts.get(it.item.id) : undefined;
      if (!known) return it;
      return { ...it, gl_account: it.gl_account ?? known.gl_account ?? null, supply: it.supply ?? known.supply ?? null };
    }),
  };
}

const ITEM_SORT: Record<string, keyof Item> = { id: 'id', name: 'name', sku: 'sku', sales_rate: 'salesRate', created_at: 'createdAt' };

export async function listItems(em: EntityManager, q: ItemListQuery) {
  const sort = parseSort(q.sort, Object.keys(ITEM_SORT), [{ field: 'id', direction: 'asc' }]);
  const where: Record<string, unknown> = {};
  if (q.search) {
    const p = containsPattern(q.search);
    where.$or = [{ name: { $ilike: p } }, { sku: { $ilike: p } }];
  }
  const orderBy = sort.map((s) => ({ [ITEM_SORT[s.field]]: s.direction }));
  if (!sort.some((s) => s.field === 'id')) orderBy.push({ id: 'asc' });
  const [rows, total] = await findAndCount(em, ItemSchema, where as FilterQuery<Item>, { orderBy: orderBy as never, limit: q.take, offset: q.from });
  return { rows, total };
}

export function priceListView(p: PriceList, rates: PriceListRate[]) {
  return {
    id: p.id,
    name: p.name,
    currency: p.currency,
    valid_from: p.validFrom ?? null,
    valid_to: p.validTo ?? null,
    is_default: p.isDefault,
    rates: rates.map((r) => ({ item_id: r.itemId, rate: toWire(r.rate), min_qty: toWire(r.minQty) })),
  };
}

export async function createPriceList(scope: TenantScope, input: PriceListRequest) {
  const { em, orgId } = scope;
  const ids = [...new Set(input.rates.map((r) => r.item_id))];
  const known = new Set((await em.find(ItemSchema, { id: { $in: ids } }, { fields: ['id'] })).map((i) => i.id));
  const missing = input.rates.map((r, i) => ({ r, i })).filter(({ r }) => !known.has(r.item_id));
  if (missing.length) {
    throw new BusinessRuleError(
      `Unknown item${missing.length > 1 ? 's' : ''} ${[...new Set(missing.map(({ r }) => r.item_id))].join(', ')}`,
      'item_not_found',
      missing.map(({ i }) => ({ path: `rates[${i}].item_id`, message: 'no such item in this organisation', code: 'item_not_found' })),
    );
  }
  if (input.is_default) {
    // one default per currency: concurrent creations of defaults take turns
    await sqlRows(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [`price-list-default:${orgId}:${input.currency}`]);
    await em.nativeUpdate(PriceListSchema, { currency: input.currency, isDefault: true }, { isDefault: false });
  }
  const list = em.create(PriceListSchema, {
    orgId,
    name: input.name,
    currency: input.currency,
    validFrom: input.valid_from ?? null,
    validTo: input.valid_to ?? null,
    isDefault: input.is_default ?? false,
    createdAt: new Date(),
  });
  await em.flush();
  const rates = input.rates.map((r) =>
    em.create(PriceListRateSchema, { orgId, priceListId: list.id, itemId: r.item_id, rate: fixed(r.rate), minQty: fixed(r.min_qty ?? 0) }),
  );
  await em.flush();
  return priceListView(list, rates);
}

export interface SalesRate {
  rate: number | null;
  source: 'price_list' | 'item' | null;
  price_list_id: number | null;
}

/**
 * What the rate of an item needs, in one prepared statement (a GET integrations may send per line
 * they price): the item, whether the price list asked for is the organisation's, and the best
 * rate of the lists that apply — the one asked for, else the default list of the currency — valid
 * on the day: the largest `min_qty` not above the quantity, the later list on a tie.
 */
const SALES_RATE = `with asked as (select ?::bigint as org_id, ?::bigint as item_id, ?::bigint as list_id, ?::text as currency, ?::date as day, ?::numeric as qty)
select i.currency, i.sales_rate::text as sales_rate, i.tax_rate::text as tax_rate,
  (a.list_id is null or exists (select 1 from price_lists where org_id = a.org_id and id = a.list_id)) as list_found,
  (select json_build_object('rate', r.rate::text, 'price_list_id', r.price_list_id)
     from price_list_rates r join price_lists l on l.id = r.price_list_id and l.org_id = r.org_id
    where r.org_id = a.org_id and r.item_id = i.id
      and l.currency = coalesce(a.currency, i.currency)
      and (case when a.list_id is null then l.is_default else l.id = a.list_id end)
      and (l.valid_from is null or l.valid_from <= a.day) and (l.valid_to is null or l.valid_to >= a.day)
      and r.min_qty <= a.qty
    order by r.min_qty desc, r.price_list_id desc, r.id
    limit 1) as best
  from asked a join items i on i.org_id = a.org_id and i.id = a.item_id`;

/**
 * GET /v1/lists/items/{id}/rates/sales: the best net rate of an item for a quantity, currency and date. The price list that
 * applies is the one `price_list_id` names, else the default list of the currency (decision 60);
 * when it is valid on the date, its rate with the largest `min_qty` ≤ qty wins; else the item's
 * own rate when the currency is the item's. `brutto` adds the item's tax. A currency with no
 * rate → 422.
 */
export async function itemSalesRate(scope: TenantScope, itemId: number, q: ItemSalesRateQuery): Promise<SalesRate> {
  const { em, orgId } = scope;
  const day = (q.reference_date ? new Date(q.reference_date) : new Date()).toISOString().slice(0, 10);
  const listId = q.price_list_id ?? null;
  const currencyAsked = q.currency_code ?? null;
  const [item] = await sqlRows<{
    currency: string;
    sales_rate: string;
    tax_rate: string | null;
    list_found: boolean;
    best: { rate: string; price_list_id: number } | null;
  }>(em, SALES_RATE, [orgId, itemId, listId, currencyAsked, day, dec(q.qty ?? 1).toFixed()], { prepared: true });
  if (!item) throw new NotFoundError(`No item ${itemId} in this organisation`, 'item_not_found');
  if (!item.list_found) throw new NotFoundError(`No price list ${listId} in this organisation`, 'price_list_not_found');
  const currency = currencyAsked ?? item.currency;
  let rate: Dec;
  let source: SalesRate['source'];
  let ratedBy: number | null = null;
  if (item.best) {
    rate = dec(item.best.rate);
    source = 'price_list';
    ratedBy = Number(item.best.price_list_id);
  } else if (currency === item.currency) {
    rate = dec(item.sales_rate);
    source = 'item';
  } else {
    throw new BusinessRuleError(`Item ${itemId} has no sales rate in ${currency}`, 'currency_not_available', [
      { path: 'currency_code', message: `no rate in ${currency}; the item is priced in ${item.currency}`, code: 'currency_not_available' },
    ]);
  }
  if (q.rate_format === 'brutto' && item.tax_rate != null) rate = rate.times(dec(item.tax_rate).plus(100)).div(100);
  return { rate: toWire(rate), source, price_list_id: ratedBy };
}
