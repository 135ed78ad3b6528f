import { BusinessRuleError } from '@ledgerline/service-kit';

/*
 * `{{ name }}` placeholders in texts a user writes (a recurring invoice's lines, a reminder's
 * e-mail), filled with each issue's values; any spaces inside the braces.
 */

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The names a text uses that are not among `known`. */
export function unknownPlaceholderNames(text: string, known: ReadonlySet<string>): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]).filter((name) => !known.has(name));
}

/** What any filled text may grow to: a text a user wrote must not grow a letter or an invoice without bound (issue 71). */
export const MAX_FILLED_LENGTH = 200_000;

/** A filled text that would pass its bound: 422, and nothing is built past the bound. */
export class FilledTextTooLongError extends BusinessRuleError {
  constructor(maxLength: number) {
    super(`The text with its placeholders filled would be longer than ${maxLength} characters`, 'text_too_long');
  }
}

/**
 * The text with each known placeholder replaced by its value; unknown ones are left as written.
 * Its length is counted before it is built: past `maxLength` it throws instead.
 */
export function fillPlaceholders<T extends string | null | undefined>(text: T, values: Readonly<Record<string, string>>, maxLength = MAX_FILLED_LENGTH): T {
  if (text == null) return text;
  let length = text.length;
  for (const m of text.matchAll(PLACEHOLDER)) if (Object.hasOwn(values, m[1])) length += values[m[1]].length - m[0].length;
  if (length > maxLength) throw new FilledTextTooLongError(maxLength);
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? values[name] : whole)) as T;
}

/**
 * The longest a text can grow to when each placeholder is filled with a value at most `longest`
 * characters long (a name not in `longest` counts as written): what a template is checked against
 * before it is stored, so no data it is filled with later can take it past its bound.
 */
export function longestFilled(text: string, longest: Readonly<Record<string, number>>): number {
  let length = text.length;
  for (const m of text.matchAll(PLACEHOLDER)) if (Object.hasOwn(longest, m[1])) length += longest[m[1]] - m[0].length;
  return length;
}
