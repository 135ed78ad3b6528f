import { Xml } from '@ledgerline/documents/xml';
import type { FilingKind } from '@ledgerline/contracts';
import { BusinessRuleError, dec, type Dec } from '@ledgerline/service-kit';
import type { ControlStatementDocumentFigures, ControlStatementSections, RateFigures } from '../control-statement.js';
import { dicDigits, epoDate, type VetaP } from './epo-filer.js';

/*
 * The control statement as the tax office's EPO portal takes it (DPHKH1, structure 03.01.14), from
 * the same sections as the JSON report (pure). Amounts are exact, in crowns and hellers; the
 * reduced rate goes to the first reduced rate's fields (zakl_dane2: 15 % until 2023, 12 % since)
 * and 10 % (until 2023) to the second's (zakl_dane3). A.1 reports the base only; A.2 names the
 * supplier by its country and VAT id; VetaC carries the totals the tax office compares with the
 * VAT return.
 */

export const DPHKH1_VERSION = '03.01.14';

type Figures = RateFigures;

const amount = (v: Dec) => v.toFixed(2);
/** The rate fields of a record: a figure left out when it is nil. */
function rateFields(f: Figures): Record<string, string | null> {
  const b2 = dec(f.base_reduced).minus(f.base_second_reduced);
  const t2 = dec(f.tax_reduced).minus(f.tax_second_reduced);
  const put = (v: Dec) => (v.isZero() ? null : amount(v));
  return {
    zakl_dane1: put(dec(f.base_basic)),
    dan1: put(dec(f.tax_basic)),
    zakl_dane2: put(b2),
    dan2: put(t2),
    zakl_dane3: put(dec(f.base_second_reduced)),
    dan3: put(dec(f.tax_second_reduced)),
  };
}

function partnerDic(d: ControlStatementDocumentFigures, section: string): string {
  const dic = dicDigits(d.partnerVatNo);
  if (!dic) {
    const message = `${section}: document ${d.documentNo ?? d.source.id} names no Czech VAT id of its partner (${d.partnerVatNo ?? 'none'})`;
    throw new BusinessRuleError(message, 'filing_partner_vat_id_missing', [{ path: section, message, code: 'filing_partner_vat_id_missing' }]);
  }
  return dic;
}

const documentNo = (d: ControlStatementDocumentFigures) => (d.documentNo ?? String(d.source.id)).slice(0, 60);
const total = (docs: readonly Figures[], pick: (f: Figures) => Dec) => docs.reduce((s, d) => s.plus(pick(d)), dec(0));
/** Two figures of a record added. */
const both = (a: string, b: string) => dec(a).plus(b);

export interface ControlStatementFilingInput {
  sections: ControlStatementSections;
  vetaP: VetaP;
  period: { rok: number; mesic?: number; ctvrt?: number };
  kind: FilingKind;
  /** DD.MM.YYYY: the day the filing is made, and for a follow-up the day its reasons were found. */
  filedOn: string;
  dateFound: string | null;
  /** The tax office's call a follow-up answers (c_jed_vyzvy). */
  callReference: string | null;
  reverseChargeCode: string | null;
  software: { name: string; version: string };
}

export function controlStatementXml(p: ControlStatementFilingInput): string {
  const { a1, a2, a4, a5, b1, b2, b3 } = p.sections;
  if ((a1.length || b1.length) && !p.reverseChargeCode) {
    const message = 'A.1 and B.1 list domestic reverse-charge documents, which need the subject code (kód předmětu plnění): set reverse_charge_code with PUT /v1/settings/tax-filing';
    throw new BusinessRuleError(message, 'tax_filing_incomplete', [{ path: 'settings.tax_filing.reverse_charge_code', message, code: 'required' }]);
  }
  const xml = new Xml();
  xml.open('Pisemnost', { nazevSW: p.software.name, verzeSW: p.software.version });
  xml.open('DPHKH1', { verzePis: DPHKH1_VERSION });
  xml.empty('VetaD', {
    dokument: 'KH1',
    k_uladis: 'DPH',
    mesic: p.period.mesic,
    ctvrt: p.period.ctvrt,
    rok: p.period.rok,
    d_poddp: p.filedOn,
    khdph_forma: p.kind,
    d_zjist: p.dateFound,
    c_jed_vyzvy: p.callReference,
  });
  xml.empty('VetaP', p.vetaP);
  a1.forEach((d, i) =>
    xml.empty('VetaA1', { c_radku: i + 1, dic_odb: partnerDic(d, 'A.1'), c_evid_dd: documentNo(d), duzp: epoDate(d.dateTaxable), zakl_dane1: amount(both(d.base_basic, d.base_reduced)), kod_pred_pl: p.reverseChargeCode }),
  );
  a2.forEach((d, i) => {
    // the supplier's VAT id of another member state: its country prefix apart, at most 12 characters
    const vat = (d.partnerVatNo ?? '').replace(/\s+/g, '').toUpperCase();
    const prefixed = /^[A-Z]{2}/.test(vat);
    xml.empty('VetaA2', {
      c_radku: i + 1,
      k_stat: prefixed ? vat.slice(0, 2) : null,
      vatid_dod: (prefixed ? vat.slice(2) : vat).slice(0, 12) || null,
      c_evid_dd: documentNo(d),
      dppd: epoDate(d.dateTaxable),
      ...rateFields(d),
    });
  });
  a4.forEach((d, i) =>
    xml.empty('VetaA4', { c_radku: i + 1, dic_odb: partnerDic(d, 'A.4'), c_evid_dd: documentNo(d), dppd: epoDate(d.dateTaxable), ...rateFields(d), kod_rezim_pl: '0', zdph_44: 'N' }),
  );
  if (!isNil(a5)) xml.empty('VetaA5', rateFields(a5));
  b1.forEach((d, i) =>
    xml.empty('VetaB1', { c_radku: i + 1, dic_dod: partnerDic(d, 'B.1'), c_evid_dd: documentNo(d), duzp: epoDate(d.dateTaxable), ...rateFields(d), kod_pred_pl: p.reverseChargeCode }),
  );
  b2.forEach((d, i) =>
    xml.empty('VetaB2', { c_radku: i + 1, dic_dod: partnerDic(d, 'B.2'), c_evid_dd: documentNo(d), dppd: epoDate(d.dateTaxable), ...rateFields(d), pomer: 'N', zdph_44: 'N' }),
  );
  if (!isNil(b3)) xml.empty('VetaB3', rateFields(b3));
  const sales = [...a4, a5];
  const purchases = [...b2, b3];
  const anything = a1.length + a2.length + a4.length + b1.length + b2.length > 0 || !isNil(a5) || !isNil(b3);
  if (anything) {
    xml.empty('VetaC', {
      obrat23: amount(total(sales, (f) => dec(f.base_basic))),
      obrat5: amount(total(sales, (f) => dec(f.base_reduced))),
      pln23: amount(total(purchases, (f) => dec(f.base_basic))),
      pln5: amount(total(purchases, (f) => dec(f.base_reduced))),
      pln_rez_pren: amount(total(a1, (f) => both(f.base_basic, f.base_reduced))),
      rez_pren23: amount(total(b1, (f) => dec(f.base_basic))),
      rez_pren5: amount(total(b1, (f) => dec(f.base_reduced))),
      celk_zd_a2: amount(total(a2, (f) => both(f.base_basic, f.base_reduced))),
    });
  }
  xml.close('DPHKH1');
  xml.close('Pisemnost');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml.toString()}\n`;
}

function isNil(f: Figures): boolean {
  return [f.base_basic, f.tax_basic, f.base_reduced, f.tax_reduced].every((v) => dec(v).isZero());
}
