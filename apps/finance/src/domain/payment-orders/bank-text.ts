/*
 * Text a bank takes in a payment order. The EPC's SEPA credit transfer implementation guidelines
 * (EPC132-08, "Character set") allow only the Latin basic set in names and remittance information:
 * a–z A–Z 0–9 / - ? : ( ) . , ' + and the space; Czech banks take the same set in pain.001 and
 * plain ASCII in the ABO file. Diacritics are taken off (Kovář → Kovar) and any other character
 * becomes a space (dashes and quotes their plain forms), so a vendor's name always reaches the bank readable and never refused.
 */

const LATIN_BASIC = /[^A-Za-z0-9/\-?:().,'+ ]/g;

/** `text` in the EPC's Latin basic set, spaces collapsed, cut to `max` characters. */
export function bankText(text: string | null | undefined, max: number): string {
  const plain = (text ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[ßẞ]/g, 'ss')
    .replace(/[Łł]/g, (c) => (c === 'Ł' ? 'L' : 'l'))
    .replace(/[Øø]/g, (c) => (c === 'Ø' ? 'O' : 'o'))
    .replace(/[Đđ]/g, (c) => (c === 'Đ' ? 'D' : 'd'))
    // dashes and typographic quotes have their plain forms in the set
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u2018\u2019\u201A]/g, "'")
    .replace(LATIN_BASIC, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.slice(0, max).trim();
}

/**
 * An identifier in the EPC set that may not start or end with `/` nor hold `//` (EndToEndId,
 * MsgId, PmtInfId: EPC132-08 "References").
 */
export function bankReference(text: string, max = 35): string {
  return bankText(text, max).replace(/\/{2,}/g, '/').replace(/^\/+|\/+$/g, '').replace(/ /g, '-');
}
