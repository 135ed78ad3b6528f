import type { FilingKind, TaxFilerAnswer } from '@ledgerline/contracts';
import { BusinessRuleError, ValidationError } from '@ledgerline/service-kit';

type FieldError = NonNullable<ConstructorParameters<typeof BusinessRuleError>[2]>[number];

/*
 * What every EPO filing says of its filer and period (pure): the VetaP record from the
 * organisation and its tax filing settings, the period as the form counts it (a month or a
 * quarter), and the EPO formats (DD.MM.YYYY dates, DIČ without its country prefix).
 */

/** DD.MM.YYYY, the date format of every EPO form. */
export const epoDate = (iso: string) => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;

/** The numeric part of a Czech DIČ ("CZ12345678" → "12345678"); null when there is none. */
export function dicDigits(vatNo: string | null | undefined): string | null {
  const digits = (vatNo ?? '').replace(/\s+/g, '').replace(/^[A-Z]{2}/i, '');
  return /^\d{1,10}$/.test(digits) ? digits : null;
}

const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The period of a filing: a calendar month, or (where the filer files quarterly) a calendar quarter. */
export function filingPeriod(dateFrom: string, dateTo: string, allowQuarter: boolean): { rok: number; mesic?: number; ctvrt?: number } {
  const year = Number(dateFrom.slice(0, 4));
  const from = Number(dateFrom.slice(5, 7));
  const to = Number(dateTo.slice(5, 7));
  const starts = dateFrom.slice(8) === '01';
  const ends = Number(dateTo.slice(8)) === lastDay(Number(dateTo.slice(0, 4)), to);
  if (starts && ends && dateTo.slice(0, 4) === dateFrom.slice(0, 4)) {
    if (from === to) return { rok: year, mesic: from };
    if (allowQuarter && to === from + 2 && from % 3 === 1) return { rok: year, ctvrt: (from + 2) / 3 };
  }
  const message = `A filing is for a calendar month${allowQuarter ? ' or quarter' : ''}: ${dateFrom} to ${dateTo} is not one`;
  throw new BusinessRuleError(message, 'filing_period_invalid', [{ path: 'date_from', message, code: 'filing_period_invalid' }]);
}

/** Splits "Vinohradská 1234/56" into the street, the house number and the orientation number. */
function streetParts(line: string | null | undefined): { ulice: string | null; c_pop: string | null; c_orient: string | null } {
  const text = (line ?? '').trim();
  const m = /^(.*?)\s+(\d{1,6})(?:\/(\w{1,4}))?$/u.exec(text);
  if (!m) return { ulice: text.slice(0, 38) || null, c_pop: null, c_orient: null };
  return { ulice: m[1].slice(0, 38), c_pop: m[2], c_orient: m[3] ?? null };
}

export type VetaP = Record<string, string | null>;

/**
 * The filer record (VetaP) and what the forms need beside it; 422 `tax_filing_incomplete` naming
 * each missing item (the settings, the organisation's VAT id).
 */
export function epoFiler(answer: TaxFilerAnswer): { vetaP: VetaP; period: 'monthly' | 'quarterly'; naturalPerson: boolean; reverseChargeCode: string | null } {
  const s = answer.settings;
  const missing: FieldError[] = [];
  const dic = dicDigits(answer.organisation.vat_no);
  if (!s) missing.push({ path: 'settings.tax_filing', message: 'not set: PUT /v1/settings/tax-filing', code: 'required' });
  if (!dic) missing.push({ path: 'organisation.vat_no', message: 'the organisation has no Czech VAT id (DIČ): PUT /v1/settings/organisation', code: 'required' });
  if (!s || !dic) throw new BusinessRuleError(`A filing needs ${missing.map((m) => m.path).join(' and ')}`, 'tax_filing_incomplete', missing);
  const address = (answer.organisation.address ?? {}) as Record<string, string | null | undefined>;
  const street = streetParts(address.address1);
  const natural = s.filer_type === 'natural_person';
  const vetaP: VetaP = {
    c_ufo: s.tax_office,
    c_pracufo: s.tax_office_workplace,
    dic,
    typ_ds: natural ? 'F' : 'P',
    titul: natural ? (s.natural_person?.title ?? null) : null,
    jmeno: natural ? (s.natural_person?.first_name ?? null) : null,
    prijmeni: natural ? (s.natural_person?.last_name ?? null) : null,
    zkrobchjm: natural ? null : answer.organisation.name.slice(0, 255),
    ulice: street.ulice,
    c_pop: street.c_pop,
    c_orient: street.c_orient,
    naz_obce: address.city?.slice(0, 48) ?? null,
    psc: address.postal_code?.replace(/\s+/g, '').slice(0, 10) ?? null,
    stat: (address.country ?? answer.organisation.country) === 'CZ' ? 'ČESKÁ REPUBLIKA' : null,
    email: s.email,
    c_telef: s.phone,
    opr_jmeno: s.signatory?.first_name ?? null,
    opr_prijmeni: s.signatory?.last_name ?? null,
    opr_postaveni: s.signatory?.position ?? null,
    sest_jmeno: s.prepared_by?.first_name ?? null,
    sest_prijmeni: s.prepared_by?.last_name ?? null,
    sest_telef: s.prepared_by?.phone ?? null,
  };
  return { vetaP, period: s.period, naturalPerson: natural, reverseChargeCode: s.reverse_charge_code ?? null };
}

/**
 * What a follow-up control statement says of why it is filed: N the day its reasons were found or
 * the tax office's call that asked for it, E (answering a call) the call. Other kinds say nothing.
 */
export function followUpFields(kind: FilingKind, dateFound: string | undefined, callReference?: string): { dateFound: string | null; callReference: string | null } {
  if (kind === 'N' && !dateFound && !callReference) {
    throw new ValidationError('A follow-up filing (N) needs date_found (the day its reasons were found) or call_reference (the call that asked for it)', [
      { path: 'date_found', message: 'required for filing_kind N without call_reference', code: 'required' },
    ]);
  }
  if (kind === 'E' && !callReference) {
    throw new ValidationError("A filing answering the tax office's call (E) needs call_reference", [{ path: 'call_reference', message: 'required for filing_kind E', code: 'required' }]);
  }
  const follow = kind === 'N' || kind === 'E';
  return { dateFound: follow && dateFound ? epoDate(dateFound) : null, callReference: follow ? (callReference ?? null) : null };
}

/** A follow-up return or list (N, or E: the return's corrective follow-up) says when its reasons were found. */
export function followUpDate(dateFound: string | undefined, kind: FilingKind = 'N'): string {
  if (!dateFound) {
    const what = kind === 'E' ? "A corrective follow-up return (E)" : 'A follow-up filing (N)';
    throw new ValidationError(`${what} needs date_found: the day its reasons were found`, [{ path: 'date_found', message: `required for filing_kind ${kind}`, code: 'required' }]);
  }
  return epoDate(dateFound);
}
