import { Xml } from '@ledgerline/documents/xml';
import { dec } from '@ledgerline/service-kit';
import type { VetaP } from './epo-filer.js';

/*
 * The EC Sales List as the EPO portal takes it (DPHSHV), from the report's lines (pure): one VetaR
 * per customer VAT id and supply code, the value in whole crowns, twenty rows to a page as the form
 * counts them. A follow-up list (následné, N) states only what changed against the list filed: a
 * line filed before and now different or gone is cancelled (k_storno A) and, where it still
 * exists, stated again; a new line is added.
 */

// the version the tax office's own EPO application writes (the schema itself states none)
export const DPHSHV_VERSION = '02.01';

/** Rows a page of the form holds (c_rad counts within it, por_c_stran the pages). */
const ROWS_PER_PAGE = 20;

/** One line as the form states it: whole crowns. */
export interface ShvLine {
  k_stat: string;
  c_vat: string;
  k_pln_eu: string;
  pln_pocet: string;
  pln_hodnota: string;
}

const keyOf = (l: Pick<ShvLine, 'k_stat' | 'c_vat' | 'k_pln_eu'>) => `${l.k_stat}|${l.c_vat}|${l.k_pln_eu}`;

/** The report's lines as the form states them. */
export function shvLines(lines: ReadonlyArray<{ country: string; vat_no: string; code: string; base: number; documents: number }>): ShvLine[] {
  return lines.map((l) => ({ k_stat: l.country, c_vat: l.vat_no.slice(0, 12), k_pln_eu: l.code, pln_pocet: String(l.documents), pln_hodnota: dec(l.base).toFixed(0) }));
}

/** The lines a filed list states (read back from its XML, which this module wrote). */
export function filedShvLines(xml: string): ShvLine[] {
  return [...xml.matchAll(/<VetaR((?:\s+[\w]+="[^"]*")*)\s*\/>/g)]
    .map((m) => Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((a) => [a[1], a[2]])) as unknown as ShvLine & { k_storno?: string })
    .filter((l) => l.k_storno !== 'A');
}

/** A follow-up's rows: each line filed and changed or gone cancelled (then stated again if it remains), each new line added. */
export function followUpRows(filed: readonly ShvLine[], now: readonly ShvLine[]): Array<ShvLine | (Omit<ShvLine, 'pln_pocet' | 'pln_hodnota'> & { k_storno: 'A' })> {
  const current = new Map(now.map((l) => [keyOf(l), l]));
  const before = new Map(filed.map((l) => [keyOf(l), l]));
  const rows: Array<ShvLine | (Omit<ShvLine, 'pln_pocet' | 'pln_hodnota'> & { k_storno: 'A' })> = [];
  for (const [key, old] of before) {
    const l = current.get(key);
    if (l && l.pln_hodnota === old.pln_hodnota && l.pln_pocet === old.pln_pocet) continue;
    rows.push({ k_stat: old.k_stat, c_vat: old.c_vat, k_pln_eu: old.k_pln_eu, k_storno: 'A' });
    if (l) rows.push(l);
  }
  for (const [key, l] of current) if (!before.has(key)) rows.push(l);
  return rows;
}

export interface EuSalesListFilingInput {
  /** The rows to state: the lines (R), or a follow-up's cancellations and corrections (N). */
  rows: ReadonlyArray<ShvLine | (Omit<ShvLine, 'pln_pocet' | 'pln_hodnota'> & { k_storno: 'A' })>;
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
  p.rows.forEach((l, i) => xml.empty('VetaR', { por_c_stran: Math.floor(i / ROWS_PER_PAGE) + 1, c_rad: (i % ROWS_PER_PAGE) + 1, ...l }));
  xml.close('DPHSHV');
  xml.close('Pisemnost');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml.toString()}\n`;
}
