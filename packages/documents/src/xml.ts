/*
 * A small XML writer for the e-invoices (UBL, ISDOC) and the tax filings (EPO): elements in the order they are written, which
 * is the order the schemas demand, with text that XML 1.0 can carry.
 */

const XML_UNSAFE = /[&<>"']/g;
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
// characters XML 1.0 cannot carry at all (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/F)
const XML_ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlText(value: string): string {
  return value.replace(XML_ILLEGAL, '\uFFFD').replace(XML_UNSAFE, (c) => XML_ESCAPES[c]);
}

/** A tiny writer: elements in the order they are added, text escaped, empty optional ones skipped. */
export class Xml {
  private readonly parts: string[] = [];
  private depth = 0;

  open(name: string, attrs: Record<string, string> = {}): this {
    this.parts.push(`${'  '.repeat(this.depth)}<${name}${attributes(attrs)}>`);
    this.depth++;
    return this;
  }

  close(name: string): this {
    this.depth--;
    this.parts.push(`${'  '.repeat(this.depth)}</${name}>`);
    return this;
  }

  leaf(name: string, value: string | number | null | undefined, attrs: Record<string, string> = {}): this {
    if (value === null || value === undefined || value === '') return this;
    this.parts.push(`${'  '.repeat(this.depth)}<${name}${attributes(attrs)}>${xmlText(String(value))}</${name}>`);
    return this;
  }

  /** An element made of attributes only (`<VetaD rok="2026"/>`); attributes without a value are left out. */
  empty(name: string, attrs: Record<string, string | number | null | undefined>): this {
    const given = Object.fromEntries(Object.entries(attrs).filter(([, v]) => v !== null && v !== undefined && v !== '').map(([k, v]) => [k, String(v)]));
    this.parts.push(`${'  '.repeat(this.depth)}<${name}${attributes(given)}/>`);
    return this;
  }

  /** An element the schema requires even when there is nothing to say (written empty). */
  required(name: string, value: string | number | null | undefined): this {
    if (value === null || value === undefined || value === '') {
      this.parts.push(`${'  '.repeat(this.depth)}<${name}/>`);
      return this;
    }
    return this.leaf(name, value);
  }

  toString(): string {
    return this.parts.join('\n');
  }
}

function attributes(attrs: Record<string, string>): string {
  return Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${xmlText(v)}"`)
    .join('');
}
