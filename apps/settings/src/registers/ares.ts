import type { ContactLookup } from '@ledgerline/contracts';
import { RegisterFormatError } from './register-answers.js';

/*
 * ARES, the Czech business register's public REST API (version 3, "ekonomicke-subjekty-v-be"):
 * `GET {ARES_URL}/ekonomicke-subjekty/{ico}` answers an EkonomickySubjekt as JSON — `ico`,
 * `obchodniJmeno`, `sidlo` (the seat: `kodStatu`, `nazevObce`, `nazevCastiObce`, `nazevUlice`,
 * `cisloDomovni`, `cisloOrientacni`, `cisloOrientacniPismeno`, `psc`, `textovaAdresa`), `dic`,
 * `pravniForma`, `datumVzniku`, `datumZaniku` — or 404 with `{kod: "NENALEZENO", popis}` for a
 * number it does not know.
 */

export type AresFinding = Omit<ContactLookup, 'source'> | { not_found: true };

type Seat = Record<string, unknown>;
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null);

/** "Jankovcova 1522/53" from the seat's street, house number and orientation number (with its letter). */
function streetLine(seat: Seat): string | null {
  const street = text(seat.nazevUlice) ?? text(seat.nazevCastiObce) ?? text(seat.nazevObce);
  const house = text(seat.cisloDomovni);
  const orientation = text(seat.cisloOrientacni);
  const number = house ? `${house}${orientation ? `/${orientation}${text(seat.cisloOrientacniPismeno) ?? ''}` : ''}` : null;
  if (!street && !number) return text(seat.textovaAdresa);
  return [street, number].filter(Boolean).join(' ');
}

/** A postal code as Czech post writes it: "170 00". */
function postalCode(v: unknown): string | null {
  const digits = text(v)?.replace(/\s/g, '') ?? null;
  return digits && /^\d{5}$/.test(digits) ? `${digits.slice(0, 3)} ${digits.slice(3)}` : digits;
}

const date = (v: unknown): string | null => {
  const t = text(v);
  return t && /^\d{4}-\d{2}-\d{2}/.test(t) ? t.slice(0, 10) : null;
};

/** ARES's answer (its HTTP status and body) as a contact to fill, or not found; anything else is a RegisterFormatError. */
export function readAresAnswer(ico: string, status: number, body: string): AresFinding {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw new RegisterFormatError(`answered ${status} with a body that is not JSON`);
  }
  if (status === 404 || json.kod === 'NENALEZENO') return { not_found: true };
  if (status !== 200) throw new RegisterFormatError(`answered ${status}${text(json.popis) ? `: ${text(json.popis)}` : ''}`);
  const name = text(json.obchodniJmeno);
  if (!name || text(json.ico)?.padStart(8, '0') !== ico) throw new RegisterFormatError('answered a record without the business name or of another IČO');
  const seat = (json.sidlo && typeof json.sidlo === 'object' ? json.sidlo : {}) as Seat;
  const legalForm = json.pravniForma && typeof json.pravniForma === 'object' ? text((json.pravniForma as Record<string, unknown>).kod) : text(json.pravniForma);
  const city = text(seat.nazevObce);
  const district = text(seat.nazevCastiObce);
  return {
    reg_no: ico,
    business_name: name,
    vat_no: text(json.dic)?.toUpperCase() ?? null,
    address: {
      address1: streetLine(seat),
      // a part of a town other than the town itself is part of a Czech address ("Holešovice")
      address2: district && district !== city && district !== text(seat.nazevUlice) ? district : null,
      postal_code: postalCode(seat.psc),
      city,
      country: text(seat.kodStatu)?.toUpperCase().slice(0, 2) ?? 'CZ',
    },
    legal_form: legalForm,
    date_established: date(json.datumVzniku),
    date_dissolved: date(json.datumZaniku),
  };
}
