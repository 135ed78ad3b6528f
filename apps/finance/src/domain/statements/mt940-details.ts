/*
 * The `:86:` field of an MT940 entry, in the forms banks write it (issue 53):
 *
 * - German and Polish subfields (DFÜ-Abkommen, "Strukturierte Umsatzbeschreibung"): a three-digit
 *   business code, then `?nn` subfields — `?00` booking text, `?10` primanota, `?20`–`?29` and
 *   `?60`–`?63` purpose, `?30` bank code or BIC, `?31` account or IBAN (`?38` at some Polish
 *   banks), `?32`–`?33` name; other
 *   banks use `~`, `>` or `<` for `?`. The purpose holds SEPA keys (`EREF+`, `KREF+`, `MREF+`,
 *   `CRED+`, `SVWZ+`, `ABWA+`…): `SVWZ+` is the remittance text, `EREF+` the end-to-end id.
 * - Dutch and other banks' tags: `/EREF/…/ORDP//NAME/…/IBAN/…/REMI/…` (also `/BENM/`, `/BIC/`,
 *   `/TRTP/`, `/CSID/`, `/MARF/`…), the name and account of the payer (`ORDP`) or payee (`BENM`).
 * - Free text, lines joined with spaces.
 *
 * Structured forms wrap at a fixed width, inside words ("Grund nicht s" / "pezifiziert"), so
 * their lines are joined without a space; free text's lines with one.
 */

export interface EntryDetails {
  /** What a person reads: the remittance text, else the booking text, else the whole field. */
  text: string | null;
  remittance: string | null;
  name: string | null;
  /** The counterparty's IBAN or account. */
  account: string | null;
  /** The SEPA end-to-end id (EREF), when it is not NOTPROVIDED. */
  endToEnd: string | null;
}

const SUBFIELDS = /^(\d{3})\s*([?~><])(\d{2})/;
const DUTCH_TAGS = ['EREF', 'REMI', 'ORDP', 'BENM', 'NAME', 'IBAN', 'BIC', 'TRTP', 'CSID', 'MARF', 'ADDR', 'ISDT', 'RTRN', 'PREF', 'ULTC', 'ULTD', 'PURP', 'CD', 'SCOR', 'ISSR', 'USTD', 'CNTP', 'ACCW'];
const SEPA_KEYS = ['EREF', 'KREF', 'MREF', 'CRED', 'DEBT', 'SVWZ', 'ABWA', 'ABWE', 'COAM', 'OAMT', 'IBAN', 'BIC'];

const clean = (s: string | null | undefined) => {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
};
const notProvided = (s: string | null) => (s && /^(NOTPROVIDED|NONREF)$/i.test(s) ? null : s);
const looksLikeIban = (s: string | null) => (s && /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(s.replace(/\s+/g, '')) ? s.replace(/\s+/g, '') : null);

/** `SVWZ+text EREF+id …` inside a German purpose: each key's text. */
function sepaKeys(purpose: string): Map<string, string> {
  const keys = new Map<string, string>();
  const re = new RegExp(`(${SEPA_KEYS.join('|')})\\+`, 'g');
  const marks = [...purpose.matchAll(re)];
  marks.forEach((m, i) => {
    const from = m.index! + m[0].length;
    const to = i + 1 < marks.length ? marks[i + 1].index! : purpose.length;
    if (!keys.has(m[1])) keys.set(m[1], purpose.slice(from, to).trim());
  });
  return keys;
}

function subfields(joined: string, separator: string): EntryDetails {
  const parts = new Map<string, string>();
  const re = new RegExp(`\\${separator}(\\d{2})`, 'g');
  const marks = [...joined.matchAll(re)];
  marks.forEach((m, i) => {
    const from = m.index! + m[0].length;
    const to = i + 1 < marks.length ? marks[i + 1].index! : joined.length;
    parts.set(m[1], (parts.get(m[1]) ?? '') + joined.slice(from, to));
  });
  const purposeCodes = ['20', '21', '22', '23', '24', '25', '26', '27', '28', '29', '60', '61', '62', '63'];
  const purpose = purposeCodes.map((c) => parts.get(c) ?? '').join('');
  const keys = sepaKeys(purpose);
  const remittance = clean(keys.get('SVWZ') ?? (keys.size ? null : purpose));
  const name = clean([parts.get('32'), parts.get('33')].filter(Boolean).join(''));
  return {
    text: remittance ?? clean(parts.get('00')) ?? clean(purpose),
    remittance,
    name,
    // ?31 is the account (IBAN in SEPA); some Polish banks put the IBAN in ?38
    account: clean(keys.get('IBAN')) ?? looksLikeIban(clean(parts.get('38'))) ?? clean(parts.get('31')),
    endToEnd: notProvided(clean(keys.get('EREF'))),
  };
}

function dutchTags(joined: string): EntryDetails {
  const re = new RegExp(`/(${DUTCH_TAGS.join('|')})/`, 'g');
  const marks = [...joined.matchAll(re)];
  const values: Array<[string, string]> = marks.map((m, i) => {
    const from = m.index! + m[0].length;
    const to = i + 1 < marks.length ? marks[i + 1].index! : joined.length;
    // ING ends a value with the second slash of `//` before the next tag
    return [m[1], joined.slice(from, to).replace(/\/+$/, '')];
  });
  const first = (tag: string) => values.find(([t]) => t === tag)?.[1] ?? null;
  // REMI/USTD//text or REMI/STRD/CUR/ref: the text after the kind
  const remi = first('REMI');
  const remittance = clean((first('USTD') ?? remi?.replace(/^(USTD|STRD)\/+(CUR\/)?/, '') ?? '').replace(/\/+$/, ''));
  // ING's counterparty: /CNTP/<IBAN>/<BIC>/<name>/<place>/
  const counterparty = first('CNTP')?.split('/') ?? [];
  return {
    text: remittance ?? clean(joined),
    remittance,
    name: clean(first('NAME')) ?? clean(counterparty[2]),
    account: looksLikeIban(clean(first('IBAN'))) ?? clean(first('IBAN')) ?? looksLikeIban(clean(counterparty[0])),
    endToEnd: notProvided(clean(first('EREF'))),
  };
}

export function readDetails(lines: readonly string[]): EntryDetails {
  const first = lines[0] ?? '';
  const structured = SUBFIELDS.exec(first);
  if (structured) return subfields(lines.join(''), structured[2]);
  if (/^\s*\/[A-Z]{2,5}\//.test(first)) return dutchTags(lines.join(''));
  const text = clean(lines.join(' '));
  // free text that starts with the counterparty's IBAN (ASN and other Dutch banks)
  const iban = looksLikeIban(text?.split(' ')[0] ?? null);
  return { text, remittance: text, name: null, account: iban, endToEnd: null };
}
