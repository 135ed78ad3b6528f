import { Xml } from '@ledgerline/documents/xml';
import { dec, type Dec } from '@ledgerline/service-kit';
import type { VetaP } from './epo-filer.js';

/*
 * The VAT return as the EPO portal takes it (DPHDP3, structure 03.01.03), from the report's filed
 * figures: whole crowns, row by row (pure). Each row of the form is an attribute pair of one of
 * its records; row 46 sums the deductions, rows 62–65 the result. A follow-up return (dodatečné,
 * D) states the corrected rows and, in row 66, the difference of the tax against the return last
 * filed for the period.
 */

export const DPHDP3_VERSION = '03.01.03';

/** Row of the form → [record, base attribute, tax attribute]. */
const ROWS: Record<string, readonly [string, string | null, string | null]> = {
  '1': ['Veta1', 'obrat23', 'dan23'],
  '2': ['Veta1', 'obrat5', 'dan5'],
  '3': ['Veta1', 'p_zb23', 'dan_pzb23'],
  '4': ['Veta1', 'p_zb5', 'dan_pzb5'],
  '5': ['Veta1', 'p_sl23_e', 'dan_psl23_e'],
  '6': ['Veta1', 'p_sl5_e', 'dan_psl5_e'],
  '7': ['Veta1', 'dov_zb23', 'dan_dzb23'],
  '8': ['Veta1', 'dov_zb5', 'dan_dzb5'],
  '9': ['Veta1', 'p_dop_nrg', 'dan_pdop_nrg'],
  '10': ['Veta1', 'rez_pren23', 'dan_rpren23'],
  '11': ['Veta1', 'rez_pren5', 'dan_rpren5'],
  '12': ['Veta1', 'p_sl23_z', 'dan_psl23_z'],
  '13': ['Veta1', 'p_sl5_z', 'dan_psl5_z'],
  '20': ['Veta2', 'dod_zb', null],
  '21': ['Veta2', 'pln_sluzby', null],
  '22': ['Veta2', 'pln_vyvoz', null],
  '23': ['Veta2', 'dod_dop_nrg', null],
  '24': ['Veta2', 'pln_zaslani', null],
  '25': ['Veta2', 'pln_rez_pren', null],
  '26': ['Veta2', 'pln_ost', null],
  // deductions "v plné výši" (in full): the column a deduction without a coefficient goes to
  '40': ['Veta4', 'pln23', 'odp_tuz23_nar'],
  '41': ['Veta4', 'pln5', 'odp_tuz5_nar'],
  '42': ['Veta4', 'dov_cu', 'odp_cu_nar'],
  '43': ['Veta4', 'nar_zdp23', 'od_zdp23'],
  '44': ['Veta4', 'nar_zdp5', 'od_zdp5'],
  '45': ['Veta4', null, 'odp_rez_nar'],
};

const RECORDS = ['Veta1', 'Veta2', 'Veta4'] as const;

export interface VatReturnFiling {
  rows: ReadonlyArray<{ row: string; base: number; tax: number }>;
  output_tax: number;
  deductible_tax: number;
  tax_due: number;
  excess_deduction: number;
}

/** The return's own tax, as row 66 compares it: row 62 − row 63 (negative: an excess deduction). */
export const returnTax = (f: Pick<VatReturnFiling, 'output_tax' | 'deductible_tax'>): Dec => dec(f.output_tax).minus(dec(f.deductible_tax));

export interface VatReturnFilingInput {
  filed: VatReturnFiling;
  vetaP: VetaP;
  period: { rok: number; mesic?: number; ctvrt?: number };
  /** B regular, O corrective, D follow-up (dodatečné), E corrective follow-up. */
  form: 'B' | 'O' | 'D' | 'E';
  filedOn: string;
  dateFound: string | null;
  /** A follow-up: the tax of the return last filed for the period (row 66 is the difference). */
  lastFiledTax: Dec | null;
  software: { name: string; version: string };
}

const whole = (v: number | Dec) => dec(v).toFixed(0);

export function vatReturnXml(p: VatReturnFilingInput): string {
  const records: Record<string, Record<string, string>> = { Veta1: {}, Veta2: {}, Veta4: {} };
  for (const r of p.filed.rows) {
    const map = ROWS[r.row];
    if (!map) continue;
    const [record, base, tax] = map;
    if (base) records[record][base] = whole(r.base);
    if (tax) records[record][tax] = whole(r.tax);
  }
  if (p.filed.deductible_tax !== 0) records.Veta4.odp_sum_nar = whole(p.filed.deductible_tax);
  const followUp = p.form === 'D' || p.form === 'E';
  const xml = new Xml();
  xml.open('Pisemnost', { nazevSW: p.software.name, verzeSW: p.software.version });
  xml.open('DPHDP3', { verzePis: DPHDP3_VERSION });
  xml.empty('VetaD', {
    dokument: 'DP3',
    k_uladis: 'DPH',
    mesic: p.period.mesic,
    ctvrt: p.period.ctvrt,
    rok: p.period.rok,
    d_poddp: p.filedOn,
    dapdph_forma: p.form,
    typ_platce: 'P',
    d_zjist: followUp ? p.dateFound : null,
    trans: dec(p.filed.output_tax).isZero() && dec(p.filed.deductible_tax).isZero() ? 'N' : 'A',
  });
  xml.empty('VetaP', p.vetaP);
  for (const record of RECORDS) if (Object.keys(records[record]).length) xml.empty(record, records[record]);
  const tax = returnTax(p.filed);
  xml.empty('Veta6', {
    dan_zocelk: whole(p.filed.output_tax),
    odp_zocelk: whole(p.filed.deductible_tax),
    // a follow-up states the difference against the last filed tax instead of the result
    dano_da: followUp ? null : whole(p.filed.tax_due),
    dano_no: followUp ? null : whole(p.filed.excess_deduction),
    dano: followUp ? whole(tax.minus(p.lastFiledTax ?? 0)) : null,
  });
  xml.close('DPHDP3');
  xml.close('Pisemnost');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml.toString()}\n`;
}
