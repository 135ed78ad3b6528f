import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ValidationError } from '../errors.js';

/*
 * Reading an XML document a client sent (received e-invoices, bank statements): checked before
 * anything is read — no DOCTYPE or ENTITY at all (none of the formats we accept needs one, so
 * entity expansion and external entities cannot happen), well-formed (the line and column named)
 * — then parsed with namespace prefixes dropped and every value kept as text, so amounts become
 * decimals and never pass through a float.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type XmlNode = Record<string, any>;

export interface XmlDocument {
  /** The root element's local name. */
  name: string | null;
  /** The root element's namespace, read from its start tag (the parser drops declarations). */
  namespace: string | null;
  root: XmlNode;
}

/**
 * What a document we read may hold. The formats we accept nest a dozen levels deep, carry a few
 * attributes per element and, within the 1 MB body limit, tens of thousands of elements; past
 * these a document is not one of them, and reading it would hold the event loop for a second
 * (80 000 attributes in 870 KB did) or fail inside the parser.
 */
export const XML_LIMITS = { depth: 64, elements: 100_000, attributes: 20_000, attributesPerElement: 64 } as const;

function malformed(message: string, path = 'body'): ValidationError {
  return new ValidationError(message, [{ path, message, code: 'malformed_xml' }], 'malformed_xml');
}

/** Line of a character offset, for a message. */
const lineAt = (xml: string, at: number) => xml.slice(0, at).split('\n').length;

/**
 * One pass over the text before anything parses it: element depth, elements and attributes
 * counted against `XML_LIMITS` (comments, CDATA and processing instructions skipped, quoted
 * attribute values read past). Well-formedness is the validator's, after this.
 */
export function checkXmlLimits(xml: string, what = 'document'): void {
  let depth = 0;
  let elements = 0;
  let attributes = 0;
  const n = xml.length;
  let i = xml.indexOf('<');
  while (i !== -1 && i < n) {
    const next = xml.charCodeAt(i + 1);
    if (next === 0x21 /* ! */) {
      const close = xml.startsWith('<!--', i) ? '-->' : xml.startsWith('<![CDATA[', i) ? ']]>' : '>';
      const end = xml.indexOf(close, i + 2);
      if (end === -1) return; // the validator names it
      i = xml.indexOf('<', end + close.length);
      continue;
    }
    if (next === 0x3f /* ? */) {
      const end = xml.indexOf('?>', i + 2);
      if (end === -1) return;
      i = xml.indexOf('<', end + 2);
      continue;
    }
    const closing = next === 0x2f; /* / */
    // read the tag to its `>`, past quoted values, counting `=` outside quotes
    let j = i + 1;
    let inTag = 0;
    let quote = 0;
    for (; j < n; j++) {
      const c = xml.charCodeAt(j);
      if (quote) {
        if (c === quote) quote = 0;
      } else if (c === 0x22 || c === 0x27) quote = c;
      else if (c === 0x3d /* = */) inTag++;
      else if (c === 0x3e /* > */) break;
    }
    if (j >= n) return;
    if (closing) depth--;
    else {
      elements++;
      attributes += inTag;
      if (xml.charCodeAt(j - 1) !== 0x2f) depth++;
      if (depth > XML_LIMITS.depth) throw malformed(`The ${what} nests elements more than ${XML_LIMITS.depth} deep (line ${lineAt(xml, i)}), deeper than any document we read`, `body:${lineAt(xml, i)}`);
      if (inTag > XML_LIMITS.attributesPerElement) throw malformed(`An element of the ${what} has ${inTag} attributes (line ${lineAt(xml, i)}); at most ${XML_LIMITS.attributesPerElement} are read`, `body:${lineAt(xml, i)}`);
      if (elements > XML_LIMITS.elements) throw malformed(`The ${what} has more than ${XML_LIMITS.elements} elements, more than any document we read`);
      if (attributes > XML_LIMITS.attributes) throw malformed(`The ${what} has more than ${XML_LIMITS.attributes} attributes, more than any document we read`);
    }
    i = xml.indexOf('<', j + 1);
  }
}

const parsers = new Map<string, XMLParser>();

function parserFor(arrays: readonly string[]): XMLParser {
  const key = arrays.join('|');
  let parser = parsers.get(key);
  if (!parser) {
    const repeated = new Set(arrays);
    parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      removeNSPrefix: true,
      parseTagValue: false,
      parseAttributeValue: false,
      trimValues: true,
      processEntities: false,
      isArray: (name) => repeated.has(name),
    });
    parsers.set(key, parser);
  }
  return parser;
}

/** The namespace of the root element, read from its start tag. */
function rootNamespace(xml: string): string | null {
  const start = /<(?![?!])(?:([A-Za-z_][\w.-]*):)?[A-Za-z_][\w.-]*((?:\s+[^\s=>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(xml);
  if (!start) return null;
  const attr = start[1] ? `xmlns:${start[1]}` : 'xmlns';
  const found = new RegExp(`\\s${attr.replace('.', '\\.')}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(start[2] ?? '');
  return found ? (found[1] ?? found[2]) : null;
}

/**
 * Checks and parses `xml`; `arrays` names the elements that may repeat (read as arrays even when
 * one is present). 400 `xml_doctype_forbidden`, or `malformed_xml` (not well-formed, or past
 * `XML_LIMITS`) otherwise.
 */
export function readXmlDocument(xml: string, arrays: readonly string[], what = 'document'): XmlDocument {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    const message = `The ${what} declares a DOCTYPE or entities, which it never needs`;
    throw new ValidationError(message, [{ path: 'body', message, code: 'xml_doctype_forbidden' }], 'xml_doctype_forbidden');
  }
  checkXmlLimits(xml, what);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw malformed(`The body is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`, `body:${valid.err.line}:${valid.err.col}`);
  let doc: XmlNode;
  try {
    doc = parserFor(arrays).parse(xml) as XmlNode;
  } catch (e) {
    // the validator passed it, so this is one of the parser's own limits: the client's document still
    throw malformed(`The ${what} could not be read: ${(e as Error).message}`);
  }
  const name = Object.keys(doc).find((k) => k !== '?xml') ?? null;
  return { name, namespace: rootNamespace(xml), root: (name ? doc[name] : {}) as XmlNode };
}

/** The text of a leaf (an element with attributes keeps its text in `#text`); null when empty. */
export function xmlLeaf(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'object') return xmlLeaf((v as XmlNode)['#text']);
  const s = String(v).trim();
  return s === '' ? null : s;
}
