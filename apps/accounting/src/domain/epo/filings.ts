import { createHash } from 'node:crypto';
import { RPC_SUBJECTS, taxFilerAnswerSchema, type FilingKind, type TaxFiling, type TaxFilingListQuery, type TaxFilingQuery, type TaxFilingRequest } from '@ledgerline/contracts';
import { BusinessRuleError, dec, sqlRows, toWire, type Dec, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { controlStatementFigures } from '../control-statement.js';
import { euSalesList } from '../eu-sales-list.js';
import { vatReturn } from '../vat-return.js';
import { controlStatementXml } from './control-statement-epo.js';
import { epoDate, epoFiler, filingPeriod, followUpDate, followUpFields } from './epo-filer.js';
import { euSalesListXml, filedShvLines, followUpRows, shvLines } from './eu-sales-list-epo.js';
import { returnTax, vatReturnXml } from './vat-return-epo.js';

/*
 * The tax office's EPO XML filings produced from the ledger (issue 57): the control statement
 * (DPHKH1), the VAT return (DPHDP3) and the EC Sales List (DPHSHV). The filer's data comes from
 * settings at the moment of filing (`rpc.settings.tax_filing`); the figures are the reports'.
 * A report's `format=epo` previews its filing and keeps nothing (a GET changes nothing, issue 71):
 * a filing is kept only when it is filed (`POST /v1/reporting/tax/filings`, a write, audited),
 * with its hash (`GET /v1/reporting/tax/filings`), so the accountant can show what was filed, and
 * a follow-up states its difference against the filing filed before it.
 */

export type FilingForm = 'DPHKH1' | 'DPHDP3' | 'DPHSHV';

/** What the filing says produced it (Pisemnost's nazevSW, verzeSW). */
export const FILING_SOFTWARE = { name: 'Ledgerline', version: '1.0.0' };

/** Today in Prague, where the tax office counts its days. */
const pragueToday = (now: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Prague' }).format(now);

/**
 * The day a filing is dated (d_poddp): the one asked for, else the later of today in Prague and the
 * period's last day (issue 70: a filing prepared before its period ended carried a day on which it
 * could not have been filed). A day before the period's end is refused.
 */
export function filingDate(q: Pick<TaxFilingQuery, 'date_to' | 'filed_on'>, now: Date): string {
  if (q.filed_on !== undefined) {
    if (q.filed_on < q.date_to) {
      const message = `${q.filed_on} is before the period ends (${q.date_to}): a period is filed once it has ended`;
      throw new BusinessRuleError(`The filing cannot be dated ${q.filed_on}: ${message}`, 'filed_before_period_end', [{ path: 'filed_on', message, code: 'filed_before_period_end' }]);
    }
    return epoDate(q.filed_on);
  }
  const today = pragueToday(now);
  return epoDate(today > q.date_to ? today : q.date_to);
}

async function filerOf(ctx: TenantContext) {
  return epoFiler(taxFilerAnswerSchema.parse(await ctx.ask(RPC_SUBJECTS.settingsTaxFiler, {})));
}

/** A filing produced from the ledger: what `keep` stores when it is filed. */
export interface ProducedFiling {
  form: FilingForm;
  q: TaxFilingQuery;
  /** The form's own kind code. */
  kind: string;
  tax: Dec | null;
  xml: string;
}

const FILING_COLUMNS = `id, form, to_char(date_from, 'YYYY-MM-DD') as date_from, to_char(date_to, 'YYYY-MM-DD') as date_to, kind, tax::text as tax, xml, sha256, created_at, created_by`;
type FilingRow = { id: string; form: FilingForm; date_from: string; date_to: string; kind: string; tax: string | null; xml: string; sha256: string; created_at: Date; created_by: string };

const filingView = (r: FilingRow): TaxFiling => ({
  id: Number(r.id),
  form: r.form,
  date_from: r.date_from,
  date_to: r.date_to,
  kind: r.kind,
  tax: toWire(r.tax),
  sha256: r.sha256,
  xml: r.xml,
  created_at: new Date(r.created_at).toISOString(),
  created_by: r.created_by,
});

async function keep(ctx: TenantContext, f: ProducedFiling): Promise<TaxFiling> {
  const [row] = await sqlRows<FilingRow>(
    ctx.em,
    `insert into tax_filings (org_id, form, date_from, date_to, kind, tax, xml, sha256, created_by) values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${FILING_COLUMNS}`,
    [ctx.orgId, f.form, f.q.date_from, f.q.date_to, f.kind, f.tax === null ? null : f.tax.toFixed(2), f.xml, createHash('sha256').update(f.xml).digest('hex'), ctx.actor],
  );
  return filingView(row);
}

/**
 * POST /v1/reporting/tax/filings: the form of an ended period produced from the ledger and kept as
 * filed. One filing of a form and period at a time (a lock), so two follow-ups never both compare
 * with the same earlier filing.
 */
export async function fileTaxFiling(ctx: TenantContext, body: TaxFilingRequest, defaultCurrency: string): Promise<TaxFiling> {
  const today = pragueToday(ctx.now());
  if (body.date_to >= today) {
    const message = `the period ends on ${body.date_to}: it is filed once it has ended (today is ${today}); GET the report with format=epo to preview it`;
    throw new BusinessRuleError(`The ${body.form} of ${body.date_from} to ${body.date_to} cannot be filed yet: ${message}`, 'period_not_ended', [{ path: 'date_to', message, code: 'period_not_ended' }]);
  }
  await sqlRows(ctx.em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [`tax-filing:${ctx.orgId}:${body.form}:${body.date_from}:${body.date_to}`]);
  const { form, ...q } = body;
  const produced = form === 'DPHDP3' ? await vatReturnFiling(ctx, q, defaultCurrency) : form === 'DPHKH1' ? await controlStatementFiling(ctx, q) : await euSalesListFiling(ctx, q, defaultCurrency);
  return keep(ctx, produced);
}

/** The filing of the form last filed for the period; 422 `no_earlier_filing` when there is none (a follow-up compares with it). */
async function lastFiling(ctx: TenantContext, form: FilingForm, q: TaxFilingQuery): Promise<{ tax: string | null; xml: string }> {
  const [last] = await sqlRows<{ tax: string | null; xml: string }>(
    ctx.em,
    'select tax::text as tax, xml from tax_filings where org_id = ? and form = ? and date_from = ? and date_to = ? order by id desc limit 1',
    [ctx.orgId, form, q.date_from, q.date_to],
  );
  if (!last) {
    const message = `A follow-up states what changed against the ${form} filed for ${q.date_from} to ${q.date_to}, and none was filed here: file the regular one (POST /v1/reporting/tax/filings, filing_kind B) first`;
    throw new BusinessRuleError(message, 'no_earlier_filing', [{ path: 'filing_kind', message, code: 'no_earlier_filing' }]);
  }
  return last;
}

/** The control statement of a month (a natural person filing quarterly: of a quarter) as DPHKH1. */
export async function controlStatementFiling(ctx: TenantContext, q: TaxFilingQuery): Promise<ProducedFiling> {
  const filer = await filerOf(ctx);
  const kind = q.filing_kind ?? 'B';
  const why = followUpFields(kind, q.date_found, q.call_reference);
  // a legal person files the control statement monthly whatever its VAT period; a natural person with its return
  const period = filingPeriod(q.date_from, q.date_to, filer.naturalPerson && filer.period === 'quarterly');
  const xml = controlStatementXml({
    sections: await controlStatementFigures(ctx, q),
    vetaP: filer.vetaP,
    period,
    kind,
    filedOn: filingDate(q, ctx.now()),
    dateFound: why.dateFound,
    callReference: why.callReference,
    reverseChargeCode: filer.reverseChargeCode,
    software: FILING_SOFTWARE,
  });
  return { form: 'DPHKH1', q, kind, tax: null, xml };
}

/** The VAT return form's kinds: a follow-up is dodatečné (D), a corrected follow-up E. */
const RETURN_FORM: Record<FilingKind, 'B' | 'O' | 'D' | 'E'> = { B: 'B', O: 'O', N: 'D', E: 'E' };

/** The VAT return of the filer's period (a month, or a quarter for a quarterly filer) as DPHDP3. */
export async function vatReturnFiling(ctx: TenantContext, q: TaxFilingQuery, defaultCurrency: string): Promise<ProducedFiling> {
  const filer = await filerOf(ctx);
  const kind = q.filing_kind ?? 'B';
  const form = RETURN_FORM[kind];
  const followUp = form === 'D' || form === 'E';
  const dateFound = followUp ? followUpDate(q.date_found, kind) : null;
  const period = filingPeriod(q.date_from, q.date_to, filer.period === 'quarterly');
  const report = await vatReturn(ctx, q, defaultCurrency);
  const lastFiledTax = followUp ? dec((await lastFiling(ctx, 'DPHDP3', q)).tax ?? 0) : null;
  const xml = vatReturnXml({ filed: report.filed, vetaP: filer.vetaP, period, form, filedOn: filingDate(q, ctx.now()), dateFound, lastFiledTax, software: FILING_SOFTWARE });
  return { form: 'DPHDP3', q, kind: form, tax: returnTax(report.filed), xml };
}

/** The EC Sales List of a month (or quarter) as DPHSHV: R regular (also a correction in time), N follow-up (what changed). */
export async function euSalesListFiling(ctx: TenantContext, q: TaxFilingQuery, defaultCurrency: string): Promise<ProducedFiling> {
  const filer = await filerOf(ctx);
  const kind = q.filing_kind ?? 'B';
  if (kind === 'E') {
    const message = 'The EC Sales List is regular (B, O) or follow-up (N); E is for the control statement and the VAT return';
    throw new BusinessRuleError(message, 'filing_kind_not_applicable', [{ path: 'filing_kind', message, code: 'filing_kind_not_applicable' }]);
  }
  const period = filingPeriod(q.date_from, q.date_to, true);
  const report = await euSalesList(ctx, q, defaultCurrency);
  const form = kind === 'N' ? 'N' : 'R';
  let rows: Parameters<typeof euSalesListXml>[0]['rows'] = shvLines(report.lines);
  if (form === 'N') {
    const last = await lastFiling(ctx, 'DPHSHV', q);
    rows = followUpRows(filedShvLines(last.xml), shvLines(report.lines));
    if (!rows.length) {
      const message = `The EC Sales List of ${q.date_from} to ${q.date_to} states the same as the one filed: a follow-up has nothing to correct`;
      throw new BusinessRuleError(message, 'nothing_to_correct', [{ path: 'filing_kind', message, code: 'nothing_to_correct' }]);
    }
  }
  const xml = euSalesListXml({ rows, vetaP: filer.vetaP, period, form, filedOn: filingDate(q, ctx.now()), software: FILING_SOFTWARE });
  return { form: 'DPHSHV', q, kind: form, tax: null, xml };
}

/** The filings produced, newest first, of one form or period when asked. */
export async function listFilings(scope: TenantScope, q: TaxFilingListQuery): Promise<{ total: number; entities: TaxFiling[] }> {
  const where = ['org_id = ?'];
  const params: unknown[] = [scope.orgId];
  if (q.form) {
    where.push('form = ?');
    params.push(q.form);
  }
  if (q.date_from) {
    where.push('date_from = ?');
    params.push(q.date_from);
  }
  const rows = await sqlRows<FilingRow & { total: number }>(
    scope.em,
    `select ${FILING_COLUMNS}, count(*) over ()::int as total from tax_filings where ${where.join(' and ')} order by id desc offset ? limit ?`,
    [...params, q.from, q.take],
  );
  return {
    total: rows[0]?.total ?? (q.from > 0 ? Number((await sqlRows<{ n: number }>(scope.em, `select count(*)::int as n from tax_filings where ${where.join(' and ')}`, params))[0].n) : 0),
    entities: rows.map(filingView),
  };
}
