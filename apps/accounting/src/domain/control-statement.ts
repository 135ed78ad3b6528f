import type { ControlStatement, TaxPeriodQuery } from '@ledgerline/contracts';
import { dec, refuseReversedPeriod, sqlRows, toWire, type Dec, type TenantContext } from '@ledgerline/service-kit';
import { reportPeriodState } from './tax-period.js';

/*
 * The Czech VAT control statement (kontrolní hlášení) of a period, decision 158: every ledger tax
 * row names its section (architecture §9: A.4 for a domestic sale over 10 000 incl. VAT to a VAT payer,
 * A.5 for the other sales, B.2 / B.3 for purchases, A.1 / B.1 for reverse charge, A.2 for what
 * is self-assessed from another member state; a credit note in its original's section).
 * Sections A.1, A.2, A.4, B.1 and B.2 list documents one by one; A.5 and B.3 are sums per rate.
 */

/** One tax row of a posted entry, as the statement reads it (figures signed; a reversal's negated). */
export interface ControlStatementRow {
  section: string;
  source: { type: string; id: number };
  documentNo: string | null;
  partnerVatNo: string | null;
  dateTaxable: string;
  rate: Dec;
  base: Dec;
  tax: Dec;
}

interface RateFigures {
  base_basic: Dec;
  tax_basic: Dec;
  base_reduced: Dec;
  tax_reduced: Dec;
  /** The part of the reduced figures at the second reduced rate (10 % until 2023), which the filing reports apart. */
  base_second_reduced: Dec;
  tax_second_reduced: Dec;
}
const noFigures = (): RateFigures => ({
  base_basic: dec(0),
  tax_basic: dec(0),
  base_reduced: dec(0),
  tax_reduced: dec(0),
  base_second_reduced: dec(0),
  tax_second_reduced: dec(0),
});

/** The basic rate is 20 % or more (21 % since 2013), as the return's rows 1 and 2 split them (vat.ts). */
function add(to: RateFigures, row: ControlStatementRow, withTax: boolean): void {
  const basic = row.rate.gte(20) || row.rate.isZero();
  const tax = withTax ? row.tax : dec(0);
  if (basic) {
    to.base_basic = to.base_basic.plus(row.base);
    to.tax_basic = to.tax_basic.plus(tax);
  } else {
    to.base_reduced = to.base_reduced.plus(row.base);
    to.tax_reduced = to.tax_reduced.plus(tax);
    // 15 % and 12 % were and are the first reduced rate, 10 % the second (until 2023)
    if (row.rate.lt(12)) {
      to.base_second_reduced = to.base_second_reduced.plus(row.base);
      to.tax_second_reduced = to.tax_second_reduced.plus(tax);
    }
  }
}

const isNil = (f: RateFigures) => f.base_basic.isZero() && f.tax_basic.isZero() && f.base_reduced.isZero() && f.tax_reduced.isZero();

export interface ControlStatementDocumentFigures extends RateFigures {
  partnerVatNo: string | null;
  documentNo: string | null;
  dateTaxable: string;
  source: { type: string; id: number };
}

/**
 * The sections from the period's tax rows: a listed section holds one line per document (the
 * rows of all its rates and of its reversals summed; a document whose figures cancel is left
 * out), in the order the rows come; a summed section holds one sum per rate. A.1 reports bases
 * only (the customer self-assesses the tax).
 */
export type ControlStatementSections = ReturnType<typeof controlStatementSections>;

export function controlStatementSections(rows: ReadonlyArray<ControlStatementRow>) {
  const listed = { 'A.1': new Map<string, ControlStatementDocumentFigures>(), 'A.2': new Map(), 'A.4': new Map(), 'B.1': new Map(), 'B.2': new Map() } as Record<
    'A.1' | 'A.2' | 'A.4' | 'B.1' | 'B.2',
    Map<string, ControlStatementDocumentFigures>
  >;
  const summed = { 'A.5': noFigures(), 'B.3': noFigures() } as Record<'A.5' | 'B.3', RateFigures>;
  for (const row of rows) {
    if (row.section === 'A.5' || row.section === 'B.3') {
      add(summed[row.section], row, true);
      continue;
    }
    const section = listed[row.section as keyof typeof listed];
    if (!section) continue; // a section this statement does not report (none is posted today)
    const key = `${row.source.type}:${row.source.id}`;
    let doc = section.get(key);
    if (!doc) {
      doc = { partnerVatNo: row.partnerVatNo, documentNo: row.documentNo, dateTaxable: row.dateTaxable, source: row.source, ...noFigures() };
      section.set(key, doc);
    }
    add(doc, row, row.section !== 'A.1');
  }
  const documents = (section: keyof typeof listed) => [...listed[section].values()].filter((d) => !isNil(d));
  return { a1: documents('A.1'), a2: documents('A.2'), a4: documents('A.4'), a5: summed['A.5'], b1: documents('B.1'), b2: documents('B.2'), b3: summed['B.3'] };
}

const wireFigures = (f: RateFigures) => ({ base_basic: toWire(f.base_basic), tax_basic: toWire(f.tax_basic), base_reduced: toWire(f.base_reduced), tax_reduced: toWire(f.tax_reduced) });
const wireDocument = (d: ControlStatementDocumentFigures) => ({
  partner_vat_no: d.partnerVatNo,
  document_no: d.documentNo,
  date_taxable: d.dateTaxable,
  source: d.source,
  ...wireFigures(d),
});

/**
 * The period's tax rows that name a listed section, with what the statement lists of their
 * entry: the partner's VAT id, the document's number (the vendor's own for a purchase: the
 * statement identifies the tax document the vendor issued) and its taxable date. Sales report the
 * base and tax they charged, purchases the base and tax on the vendor's document. The summed
 * sections (A.5, B.3) come summed per rate by the database: a month of a large business has
 * hundreds of thousands of their rows, which the service need not hold (issue 59: holding them
 * ran a 160 MB heap out).
 */
const SIGN = `case when e.entry_kind = 'reversal' then -1 else 1 end`;
// A.2 lists purchases, whose base is on the input side (as the VAT return reads it)
const BASE = `(case when t.tax_control_statement like 'A%' then coalesce(t.tax_base_out_leg, t.tax_base_in_leg, 0) else coalesce(t.tax_base_in_leg, 0) end)`;
const TAX = `(case when t.tax_control_statement like 'A%' then coalesce(t.tax_amount_out_leg, 0) else coalesce(t.tax_amount_in_leg, 0) end)`;
const PERIOD = `from accounting_transactions e
    join ledger_tax_rows t on t.transaction_id = e.id and t.org_id = e.org_id
   where e.org_id = ? and e.date_posting >= ?::date and e.date_posting <= ?::date and t.tax_control_statement is not null`;
const SUMMED_SECTIONS = `('A.5', 'B.3')`;
const ROWS = `
  select e.source_type, e.source_id, ${SIGN} as sign,
         case when e.source_type like 'purchase%' then coalesce(e.vendor_doc_no, e.no) else e.no end as document_no,
         nullif(trim(e.contact->>'vat_no'), '') as vat_no,
         to_char(coalesce(e.date_taxable, e.date_posting), 'YYYY-MM-DD') as date_taxable,
         t.tax_control_statement as section, coalesce(t.tax_rate, 0)::text as rate, ${BASE}::text as base, ${TAX}::text as tax
    ${PERIOD} and t.tax_control_statement not in ${SUMMED_SECTIONS}
   order by e.date_posting, e.id, t.ord`;
const SUMS = `
  select t.tax_control_statement as section, coalesce(t.tax_rate, 0)::text as rate,
         sum(${BASE} * ${SIGN})::text as base, sum(${TAX} * ${SIGN})::text as tax
    ${PERIOD} and t.tax_control_statement in ${SUMMED_SECTIONS}
   group by 1, 2 order by 1, 2`;

/** The sections of a period from its ledger tax rows (what the report and the filing both show). */
export async function controlStatementFigures(ctx: TenantContext, q: TaxPeriodQuery): Promise<ControlStatementSections> {
  refuseReversedPeriod(q);
  const { em, orgId } = ctx;
  const found = await sqlRows<{
    source_type: string;
    source_id: number;
    sign: number;
    document_no: string | null;
    vat_no: string | null;
    date_taxable: string;
    section: string;
    rate: string;
    base: string;
    tax: string;
  }>(em, ROWS, [orgId, q.date_from, q.date_to]);
  const sums = await sqlRows<{ section: string; rate: string; base: string; tax: string }>(em, SUMS, [orgId, q.date_from, q.date_to]);
  return controlStatementSections([
    ...found.map((r) => ({
      section: r.section,
      source: { type: r.source_type, id: Number(r.source_id) },
      documentNo: r.document_no,
      partnerVatNo: r.vat_no,
      dateTaxable: r.date_taxable,
      rate: dec(r.rate),
      base: dec(r.base).times(r.sign),
      tax: dec(r.tax).times(r.sign),
    })),
    // a summed section's rows are added up per rate whatever document they came from
    ...sums.map((r) => ({ section: r.section, source: { type: 'sum', id: 0 }, documentNo: null, partnerVatNo: null, dateTaxable: q.date_from, rate: dec(r.rate), base: dec(r.base), tax: dec(r.tax) })),
  ]);
}

export async function controlStatement(ctx: TenantContext, q: TaxPeriodQuery, defaultCurrency: string): Promise<ControlStatement> {
  const sections = await controlStatementFigures(ctx, q);
  const { currency, closed } = await reportPeriodState(ctx, q, defaultCurrency);
  return {
    currency,
    date_from: q.date_from,
    date_to: q.date_to,
    a1: sections.a1.map(wireDocument),
    a2: sections.a2.map(wireDocument),
    a4: sections.a4.map(wireDocument),
    a5: wireFigures(sections.a5),
    b1: sections.b1.map(wireDocument),
    b2: sections.b2.map(wireDocument),
    b3: wireFigures(sections.b3),
    closed,
  };
}
