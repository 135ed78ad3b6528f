import type { EuSalesList, TaxPeriodQuery } from '@ledgerline/contracts';
import { dec, refuseReversedPeriod, sqlRows, toWire, type Dec, type TenantContext } from '@ledgerline/service-kit';
import { reportPeriodState } from './tax-period.js';

/*
 * The EC Sales List (souhrnné hlášení) of a period, decision 159: supplies to VAT payers in other
 * EU states, from the code every such ledger tax row carries (architecture §9: 0 goods, 3 services),
 * summed per customer VAT id and code.
 */

/** One tax row the list reads: the customer's VAT id as the document named it, its code and base (signed). */
export interface EuSalesRow {
  vatNo: string;
  /** The customer's address country, for a VAT id written without its prefix. */
  addressCountry: string | null;
  code: string;
  base: Dec;
  source: { type: string; id: number };
}

export interface EuSalesLine {
  country: string;
  vatNo: string;
  code: string;
  base: Dec;
  documents: number;
}

/**
 * A VAT id as the list reports it: the member state (its prefix; Greece's is EL) and the number
 * without it, spaces and dots dropped and upper case. Without a prefix the customer's address
 * country is the state.
 */
export function splitVatId(vatNo: string, addressCountry: string | null): { country: string; number: string } {
  const compact = vatNo.replace(/[\s.\-]/g, '').toUpperCase();
  const prefixed = /^([A-Z]{2})(.+)$/.exec(compact);
  if (prefixed) return { country: prefixed[1], number: prefixed[2] };
  const country = (addressCountry ?? '').trim().toUpperCase();
  return { country: country === 'GR' ? 'EL' : country, number: compact };
}

/** The list's lines: one per state, VAT id and code, with the documents in it; lines that cancel are left out. */
export function euSalesLines(rows: ReadonlyArray<EuSalesRow>): EuSalesLine[] {
  const lines = new Map<string, EuSalesLine & { sources: Set<string> }>();
  for (const r of rows) {
    const { country, number } = splitVatId(r.vatNo, r.addressCountry);
    const key = `${country}|${number}|${r.code}`;
    let line = lines.get(key);
    if (!line) {
      line = { country, vatNo: number, code: r.code, base: dec(0), documents: 0, sources: new Set() };
      lines.set(key, line);
    }
    line.base = line.base.plus(r.base);
    line.sources.add(`${r.source.type}:${r.source.id}`);
  }
  return [...lines.values()]
    .filter((l) => !l.base.isZero())
    .map(({ sources, ...l }) => ({ ...l, documents: sources.size }))
    .sort((a, b) => a.country.localeCompare(b.country) || a.vatNo.localeCompare(b.vatNo) || a.code.localeCompare(b.code));
}

const ROWS = `
  select e.source_type, e.source_id, case when e.entry_kind = 'reversal' then -1 else 1 end as sign,
         e.contact->>'vat_no' as vat_no, e.contact->'address'->>'country' as address_country,
         t.tax_eu_sales_report as code, coalesce(t.tax_base_out_leg, 0)::text as base
    from accounting_transactions e
    join ledger_tax_rows t on t.transaction_id = e.id and t.org_id = e.org_id
   where e.org_id = ? and e.date_posting >= ?::date and e.date_posting <= ?::date
     and t.tax_eu_sales_report is not null and nullif(trim(e.contact->>'vat_no'), '') is not null`;

export async function euSalesList(ctx: TenantContext, q: TaxPeriodQuery, defaultCurrency: string): Promise<EuSalesList> {
  refuseReversedPeriod(q);
  const { em, orgId } = ctx;
  const found = await sqlRows<{ source_type: string; source_id: number; sign: number; vat_no: string; address_country: string | null; code: string; base: string }>(em, ROWS, [
    orgId,
    q.date_from,
    q.date_to,
  ]);
  const lines = euSalesLines(
    found.map((r) => ({ vatNo: r.vat_no, addressCountry: r.address_country, code: r.code, base: dec(r.base).times(r.sign), source: { type: r.source_type, id: Number(r.source_id) } })),
  );
  const { currency, closed } = await reportPeriodState(ctx, q, defaultCurrency);
  return {
    currency,
    date_from: q.date_from,
    date_to: q.date_to,
    lines: lines.map((l) => ({ country: l.country, vat_no: l.vatNo, code: l.code, base: toWire(l.base), documents: l.documents })),
    closed,
  };
}
