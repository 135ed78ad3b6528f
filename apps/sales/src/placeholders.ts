/*
 * `{{ name }}` placeholders in texts a user writes (a recurring invoice's lines, a reminder's
 * e-mail), filled with each issue's values; any spaces inside the braces.
 */

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The names a text uses that are not among `known`. */
export function unknownPlaceholderNames(text: string, known: ReadonlySet<string>): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]).filter((name) => !known.has(name));
}

/** The text with each known placeholder replaced by its value; unknown ones are left as written. */
export function fillPlaceholders<T extends string | null | undefined>(text: T, values: Readonly<Record<string, string>>): T {
  if (text == null) return text;
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? values[name] : whole)) as T;
}
