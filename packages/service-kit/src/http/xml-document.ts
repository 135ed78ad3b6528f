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
 * one is present). 400 `xml_doctype_forbidden` or `malformed_xml` otherwise.
 */
export function readXmlDocument(xml: string, arrays: readonly string[], what = 'document'): XmlDocument {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    const message = `The ${what} declares a DOCTYPE or entities, which it never needs`;
    throw new ValidationError(message, [{ path: 'body', message, code: 'xml_doctype_forbidden' }], 'xml_doctype_forbidden');
  }
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const message = `The body is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`;
    throw new ValidationError(message, [{ path: `body:${valid.err.line}:${valid.err.col}`, message, code: 'malformed_xml' }], 'malformed_xml');
  }
  const doc = parserFor(arrays).parse(xml) as XmlNode;
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
