import type { TaxPeriodQuery } from '@ledgerline/contracts';
import { JsonText, refuseReversedPeriod, sqlRows, type TenantContext } from '@ledgerline/service-kit';
import { ENTRY_SIGN, PERIOD_TAX_ROWS, readTaxReport, reportPeriodState } from './tax-period.js';
import { BASIC_RATE_FLOOR } from './vat.js';
import { jsonInteger, jsonMembers, jsonNumber, jsonString } from './json-sql.js';

/*
 * The Czech VAT control statement (kontrolní hlášení) of a period, decision 158: every ledger tax
 * row names its section (architecture §9: A.4 for a domestic sale over 10 000 incl. VAT to a VAT payer,
 * A.5 for the other sales, B.2 / B.3 for purchases, A.1 / B.1 for reverse charge, A.2 for what
 * is self-assessed from another member state; a credit note in its original's section).
 * Sections A.1, A.2, A.4, B.1 and B.2 list documents one by one; A.5 and B.3 are sums per rate.
 */

/**
 * A section's figures split by rate, as decimal text (exact, as Postgres sums them): the basic
 * rate is 20 % or more (21 % since 2013) or none, as the return's rows 1 and 2 split them
 * (vat.ts), the rest reduced; the part of the reduced figures at the second reduced rate (10 %
 * until 2023, below 12 %) is also given apart, which the filing reports on fields of its own.
 */
export interface RateFigures {
  base_basic: string;
  tax_basic: string;
  base_reduced: string;
  tax_reduced: string;
  base_second_reduced: string;
  tax_second_reduced: string;
}

export interface ControlStatementDocumentFigures extends RateFigures {
  partnerVatNo: string | null;
  documentNo: string | null;
  dateTaxable: string;
  source: { type: string; id: number };
}

/** A listed section holds one line per document, a summed section one sum per rate class. */
export interface ControlStatementSections {
  a1: ControlStatementDocumentFigures[];
  a2: ControlStatementDocumentFigures[];
  a4: ControlStatementDocumentFigures[];
  a5: RateFigures;
  b1: ControlStatementDocumentFigures[];
  b2: ControlStatementDocumentFigures[];
  b3: RateFigures;
}

const LISTED = { 'A.1': 'a1', 'A.2': 'a2', 'A.4': 'a4', 'B.1': 'b1', 'B.2': 'b2' } as const;
const SUMMED = { 'A.5': 'a5', 'B.3': 'b3' } as const;
const quoted = (o: object) => Object.keys(o).map((s) => `'${s}'`).join(', ');

/*
 * The database sums the statement (decision 218): a month of a large business lists tens of
 * thousands of documents from twice as many tax rows, and folding them in the service cost more
 * than a second of its CPU in decimal arithmetic. The sums read two relations. `tax_rows`, one row
 * per ledger tax row: its section; its document (source_type, source_id); its entry's day and id
 * and its own ord, the order rows come in; the rate; the base and the tax, signed (a reversal's
 * negated). `entries`: what the statement lists of a document as an entry states it (entry_id,
 * document_no, vat_no, date_taxable as text), read only for each document's first entry.
 * `controlStatementSql` takes both as SQL, so the rules are tested on rows given as values.
 */
const BASIC = `rate >= ${BASIC_RATE_FLOOR} or rate = 0`;
/** The six figures summed by rate class, the tax as the expression `tax` gives it. */
const rateClasses = (tax: string) => `
    coalesce(sum(base) filter (where ${BASIC}), 0) as base_basic,
    coalesce(sum(${tax}) filter (where ${BASIC}), 0) as tax_basic,
    coalesce(sum(base) filter (where not (${BASIC})), 0) as base_reduced,
    coalesce(sum(${tax}) filter (where not (${BASIC})), 0) as tax_reduced,
    coalesce(sum(base) filter (where not (${BASIC}) and rate < 12), 0) as base_second_reduced,
    coalesce(sum(${tax}) filter (where not (${BASIC}) and rate < 12), 0) as tax_second_reduced`;
// numeric, which the driver answers as its exact text
const FIGURES = 'base_basic, tax_basic, base_reduced, tax_reduced, base_second_reduced, tax_second_reduced';

/**
 * The statement's SQL over the tax rows `taxRows`, one statement: a row per document of a listed
 * section (the rows of all its rates and of its reversals summed; A.1 reports bases only, as the
 * customer self-assesses the tax; a document whose figures cancel is left out), named as its
 * first entry states it, in the order of its first row; then a row per summed section with its
 * figures (`source_type` null). Sections the statement does not report are left out.
 */
export function controlStatementSql(taxRows: string, entries: string): string {
  return `
    with tax_rows as (${taxRows}), documents as (
      select section, source_type, source_id,
             min(day) as first_day,
             (array_agg(entry_id order by day, entry_id, ord))[1] as first_entry,
             ${rateClasses("case when section = 'A.1' then 0 else tax end")}
        from tax_rows where section in (${quoted(LISTED)})
       group by section, source_type, source_id
    ), sums as (
      select section, ${rateClasses('tax')} from tax_rows where section in (${quoted(SUMMED)}) group by section
    )
    select * from (
      select d.section, d.source_type, d.source_id::text, e.document_no, e.vat_no, e.date_taxable, ${FIGURES}, d.first_day, d.first_entry
        from documents d
        join (${entries}) e on e.entry_id = d.first_entry
       where not (base_basic = 0 and tax_basic = 0 and base_reduced = 0 and tax_reduced = 0)
      union all
      select section, null, null, null, null, null, ${FIGURES}, null, null from sums
    ) answer
     order by first_day, first_entry, section`;
}

/** A row of what `controlStatementSql` answers: a document's, or a summed section's (no source). */
export type SectionRow = RateFigures & { section: string; source_type: string | null; source_id: string | null; document_no: string | null; vat_no: string | null; date_taxable: string | null };

const NO_FIGURES: RateFigures = { base_basic: '0', tax_basic: '0', base_reduced: '0', tax_reduced: '0', base_second_reduced: '0', tax_second_reduced: '0' };
const figuresOf = (r: RateFigures): RateFigures => ({
  base_basic: r.base_basic,
  tax_basic: r.tax_basic,
  base_reduced: r.base_reduced,
  tax_reduced: r.tax_reduced,
  base_second_reduced: r.base_second_reduced,
  tax_second_reduced: r.tax_second_reduced,
});

/** The sections from what the SQL answered, each listed section in the order of the answer. */
export function controlStatementSections(answer: ReadonlyArray<SectionRow>): ControlStatementSections {
  const sections: ControlStatementSections = { a1: [], a2: [], a4: [], a5: NO_FIGURES, b1: [], b2: [], b3: NO_FIGURES };
  for (const r of answer) {
    if (r.source_type === null) {
      sections[SUMMED[r.section as keyof typeof SUMMED]] = figuresOf(r);
      continue;
    }
    sections[LISTED[r.section as keyof typeof LISTED]].push({
      partnerVatNo: r.vat_no,
      documentNo: r.document_no,
      dateTaxable: r.date_taxable!,
      source: { type: r.source_type, id: Number(r.source_id) },
      ...figuresOf(r),
    });
  }
  return sections;
}

/**
 * The period's tax rows that name a section, as `controlStatementSql` reads them: the partner's
 * VAT id, the document's number (the vendor's own for a purchase: the statement identifies the
 * tax document the vendor issued) and its taxable date. Sales report the base and tax they
 * charged, purchases the base and tax on the vendor's document (A.2 lists purchases, whose base is
 * on the input side, as the VAT return reads it).
 */
const PERIOD_SQL = controlStatementSql(
  `select t.tax_control_statement as section, e.source_type, e.source_id, e.date_posting as day, e.id as entry_id, t.ord,
          coalesce(t.tax_rate, 0) as rate,
          (case when t.tax_control_statement like 'A%' then coalesce(t.tax_base_out_leg, t.tax_base_in_leg, 0) else coalesce(t.tax_base_in_leg, 0) end) * ${ENTRY_SIGN} as base,
          (case when t.tax_control_statement like 'A%' then coalesce(t.tax_amount_out_leg, 0) else coalesce(t.tax_amount_in_leg, 0) end) * ${ENTRY_SIGN} as tax
     from ${PERIOD_TAX_ROWS}
    where t.tax_control_statement is not null`,
  `select id as entry_id,
          case when source_type like 'purchase%' then coalesce(vendor_doc_no, no) else no end as document_no,
          nullif(trim(contact->>'vat_no'), '') as vat_no,
          to_char(coalesce(date_taxable, date_posting), 'YYYY-MM-DD') as date_taxable
     from accounting_transactions where org_id = ?`,
);

/** The sections of a period from its ledger tax rows (what the report and the filing both show). */
export async function controlStatementFigures(ctx: TenantContext, q: TaxPeriodQuery): Promise<ControlStatementSections> {
  refuseReversedPeriod(q);
  const answer = await readTaxReport(ctx, (em) => sqlRows<SectionRow>(em, PERIOD_SQL, [ctx.orgId, q.date_from, q.date_to, ctx.orgId]));
  return controlStatementSections(answer);
}

/*
 * The answer's JSON is written by Postgres, a line of it per row of the statement (issue 79): a
 * month of a large organisation lists tens of thousands of documents, and reading each one's
 * fifteen columns, building its figures, its view and then the answer's text cost accounting
 * three to four times the CPU of reading one text a line (27 397 lines: 443 ms of its CPU on a
 * slow hour, most of the report's second beside Postgres' own work). The figures are written as
 * the exact decimals Postgres summed without their trailing zeros (json-sql.ts).
 */

/** The four figures the answer shows of a rate split, as the members of a JSON object. */
const FIGURE_MEMBERS = jsonMembers(['base_basic', 'tax_basic', 'base_reduced', 'tax_reduced'].map((f) => [f, jsonNumber(f)] as const));
/** A listed document's line (`ControlStatementDocument`). */
const DOCUMENT_JSON = `'{' || ${jsonMembers([
  ['partner_vat_no', jsonString('vat_no')],
  ['document_no', jsonString('document_no')],
  ['date_taxable', jsonString('date_taxable')],
  ['source', `'{' || ${jsonMembers([['type', jsonString('source_type')], ['id', jsonInteger('source_id')]])} || '}'`],
])} || ',' || ${FIGURE_MEMBERS} || '}'`;

/**
 * What `controlStatementSql` answers (`statementSql`), each row's line as the answer writes it:
 * a listed document's (`ControlStatementDocument`), or a summed section's figures
 * (`ControlStatementTotals`, `summed`), in the statement's order.
 */
export function controlStatementJsonSql(statementSql: string): string {
  return `
    select section, source_type is null as summed,
           case when source_type is null then '{' || ${FIGURE_MEMBERS} || '}' else ${DOCUMENT_JSON} end as json
      from (${statementSql}) statement
     order by first_day, first_entry, section`;
}

/** A row of what `controlStatementJsonSql` answers. */
export interface SectionJsonRow {
  section: string;
  summed: boolean;
  json: string;
}

const NO_FIGURES_JSON = '{"base_basic":0,"tax_basic":0,"base_reduced":0,"tax_reduced":0}';

/** The answer (`ControlStatement`) from the lines Postgres wrote, each listed section in their order. */
export function controlStatementJson(state: { currency: string; date_from: string; date_to: string; closed: boolean }, rows: ReadonlyArray<SectionJsonRow>): JsonText {
  const listed: Record<keyof typeof LISTED, string[]> = { 'A.1': [], 'A.2': [], 'A.4': [], 'B.1': [], 'B.2': [] };
  const summed: Partial<Record<keyof typeof SUMMED, string>> = {};
  for (const r of rows) {
    if (r.summed) summed[r.section as keyof typeof SUMMED] = r.json;
    else listed[r.section as keyof typeof LISTED].push(r.json);
  }
  const list = (section: keyof typeof LISTED) => `[${listed[section].join(',')}]`;
  return new JsonText(
    `{"currency":${JSON.stringify(state.currency)},"date_from":${JSON.stringify(state.date_from)},"date_to":${JSON.stringify(state.date_to)}` +
      `,"a1":${list('A.1')},"a2":${list('A.2')},"a4":${list('A.4')},"a5":${summed['A.5'] ?? NO_FIGURES_JSON}` +
      `,"b1":${list('B.1')},"b2":${list('B.2')},"b3":${summed['B.3'] ?? NO_FIGURES_JSON},"closed":${state.closed}}`,
  );
}

/** The same statement with each line written as the answer's JSON (`controlStatementJsonSql`). */
const PERIOD_JSON_SQL = controlStatementJsonSql(PERIOD_SQL);

export async function controlStatement(ctx: TenantContext, q: TaxPeriodQuery, defaultCurrency: string): Promise<JsonText> {
  refuseReversedPeriod(q);
  const rows = await readTaxReport(ctx, (em) => sqlRows<SectionJsonRow>(em, PERIOD_JSON_SQL, [ctx.orgId, q.date_from, q.date_to, ctx.orgId]));
  const { currency, closed } = await reportPeriodState(ctx, q, defaultCurrency);
  return controlStatementJson({ currency, date_from: q.date_from, date_to: q.date_to, closed }, rows);
}
