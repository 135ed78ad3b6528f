import { BusinessRuleError } from '@ledgerline/core/errors';
import { Dec, type DecimalInput } from '@ledgerline/core/money';
import { isSupplyKind, sharedCategory, taxCategoryOf, type SupplyKind, type TaxCategory, type TaxParties } from '@ledgerline/core/tax-category';

/*
 * What each line of a sales or purchase document is, decided once when the document is posted
 * and stored with it (issue 70): the VAT category of every tax line (`tax_category`) and what an
 * item supplies (`supply`). Posting, the VAT reports and the e-invoices read what is stored.
 */

type Taxed = { tax_code?: string | null; tax_rate: DecimalInput; rate_type?: string | null; tax_details?: Record<string, unknown> | null; tax_category?: string | null };
type Lines = { items: ReadonlyArray<{ taxes?: readonly Taxed[] | null }>; shipping_charges?: ReadonlyArray<{ taxes?: readonly Taxed[] | null }> | null };

/** The parties a zero-rated line's category depends on: the organisation's country and the buyer's. */
export function documentParties(
  partner: { vat_no?: string | null; address?: { country?: string | null } | null } | null | undefined,
  billingCountry: string | null | undefined,
  orgCountry: string | null | undefined,
): TaxParties {
  return { sellerCountry: orgCountry ?? 'CZ', buyerCountry: billingCountry ?? partner?.address?.country ?? null, buyerHasVatId: !!partner?.vat_no?.trim() };
}

/** The recap row a tax line adds to: the document arithmetic's key, its tax code and rate. */
export const recapKey = (t: { tax_code?: string | null; tax_rate: DecimalInput }) => JSON.stringify([t.tax_code ?? null, new Dec(t.tax_rate).toFixed()]);

export interface DocumentCategories {
  /** The category of a recap row and of every line adding to it, by `recapKey`. */
  recap: ReadonlyMap<string, TaxCategory>;
}

/**
 * The category of each recap row of a request, from the tax lines it sums. Lines
 * that share a code and rate but not a category (one flagged reverse charge, one not) cannot be one
 * recap row: 422 `tax_category_conflict` names them, before anything is written.
 */
export function documentCategories(input: Lines, parties: TaxParties): DocumentCategories {
  const byKey = new Map<string, Array<{ path: string; category: TaxCategory }>>();
  const categorise = (taxes: readonly Taxed[] | null | undefined, path: string) =>
    (taxes ?? []).forEach((t, k) => {
      const key = recapKey(t);
      byKey.set(key, [...(byKey.get(key) ?? []), { path: `${path}.taxes[${k}]`, category: taxCategoryOf(t, parties) }]);
    });
  input.items.forEach((it, i) => categorise(it.taxes, `items[${i}]`));
  (input.shipping_charges ?? []).forEach((s, i) => categorise(s.taxes, `shipping_charges[${i}]`));
  const recap = new Map<string, TaxCategory>();
  const conflicts: Array<{ path: string; message: string; code: string }> = [];
  for (const [key, lines] of byKey) {
    const { category, conflict } = sharedCategory(lines.map((l) => l.category));
    if (category) recap.set(key, category);
    else {
      const [code, rate] = JSON.parse(key) as [string | null, string];
      const message = `tax ${code ?? '(no code)'} at ${rate} % is ${conflict.join(' on some lines and ')} on others: give each category a tax code of its own`;
      for (const l of lines) conflicts.push({ path: `${l.path}.tax_category`, message, code: 'tax_category_conflict' });
    }
  }
  if (conflicts.length) throw new BusinessRuleError(`Lines of one tax code and rate are of different VAT categories: ${conflicts[0].message}`, 'tax_category_conflict', conflicts);
  return { recap };
}

/** What an item supplies: its own word, else the organisation's default, else goods. */
export function supplyOf(item: { supply?: string | null }, orgDefault: unknown): SupplyKind {
  if (isSupplyKind(item.supply)) return item.supply;
  return isSupplyKind(orgDefault) ? orgDefault : 'goods';
}
