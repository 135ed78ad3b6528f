import { RPC_SUBJECTS, taxFilerAnswerSchema, type TaxFilingQuery } from '@ledgerline/contracts';
import type { TenantContext } from '@ledgerline/service-kit';
import { controlStatementFigures } from '../control-statement.js';
import { controlStatementXml } from './control-statement-epo.js';
import { epoDate, epoFiler, filingPeriod, followUpDate } from './epo-filer.js';

/*
 * The tax office's EPO XML filings produced from the ledger (issue 57). The filer's data comes
 * from settings at the moment of filing (`rpc.settings.tax_filing`); the figures are the report's.
 */

/** What the filing says produced it (Pisemnost's nazevSW, verzeSW). */
export const FILING_SOFTWARE = { name: 'Ledgerline', version: '1.0.0' };

/** Today in Prague, where the tax office counts its days. */
const pragueToday = (now: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Prague' }).format(now);

/** The control statement of a month (a natural person filing quarterly: of a quarter) as DPHKH1. */
export async function controlStatementFiling(ctx: TenantContext, q: TaxFilingQuery): Promise<string> {
  const filer = epoFiler(taxFilerAnswerSchema.parse(await ctx.ask(RPC_SUBJECTS.settingsTaxFiler, {})));
  const kind = q.filing_kind ?? 'B';
  const dateFound = followUpDate(kind, q.date_found);
  // a legal person files the control statement monthly whatever its VAT period; a natural person with its return
  const period = filingPeriod(q.date_from, q.date_to, filer.naturalPerson && filer.period === 'quarterly');
  const sections = await controlStatementFigures(ctx, q);
  return controlStatementXml({
    sections,
    vetaP: filer.vetaP,
    period,
    kind,
    filedOn: epoDate(pragueToday(ctx.now())),
    dateFound,
    reverseChargeCode: filer.reverseChargeCode,
    software: FILING_SOFTWARE,
  });
}
