import { Xml } from '@ledgerline/documents/xml';
import { dec } from '@ledgerline/service-kit';
import type { VetaP } from './epo-filer.js';

/*
 * The EC Sales List as the EPO portal takes it (DPHSHV), from the report's lines (pure): one VetaR
 * per customer VAT id and supply code, the value in whole crowns, twenty rows to a page as the form
 * counts them. A follow-up list (následné, N) states the corrected lines.
 */

// the version the tax office's own EPO application writes (the schema itself states none)
export const DPHSHV_VERSION = '02.01';

/** Rows a page of the form holds (c_rad counts within it, por_c_stran the pages). */
const ROWS_PER_PAGE = 20;

export interface EuSalesListFilingInput {
  lines: ReadonlyArray<{ country: string; vat_no: string; code: string; base: number; documents: number }>;
  vetaP: VetaP;
  period: { rok: number; mesic?: number; ctvrt?: number };
  /** R regular (also a correction within the deadline), N follow-up. */
  form: 'R' | 'N';
  filedOn: string;
  software: { name: string; version: string };
}

export function euSalesListXml(p: EuSalesListFilingInput): string {
  const xml = new Xml();
  xml.open('Pisemnost', { nazevSW: p.software.name, verzeSW: p.software.version });
  xml.open('DPHSHV', { verzePis: DPHSHV_VERSION });
  xml.empty('VetaD', { dokument: 'SHV', k_uladis: 'DPH', mesic: p.period.mesic, ctvrt: p.period.ctvrt, rok: p.period.rok, shvies_forma: p.form, d_poddp: p.filedOn });
  // the EC Sales List names the filer without its signatory's phone or e-mail
  const { email: _email, c_telef: _phone, ...vetaP } = p.vetaP;
  xml.empty('VetaP', vetaP);
  p.lines.forEach((l, i) =>
    xml.empty('VetaR', {
      por_c_stran: Math.floor(i / ROWS_PER_PAGE) + 1,
      c_rad: (i % ROWS_PER_PAGE) + 1,
      k_stat: l.country,
      c_vat: l.vat_no.slice(0, 12),
      k_pln_eu: l.code,
      pln_pocet: l.documents,
      pln_hodnota: dec(l.base).toFixed(0),
    }),
  );
  xml.close('DPHSHV');
  xml.close('Pisemnost');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml.toString()}\n`;
}
