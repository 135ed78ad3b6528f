import { readXmlDocument } from '@ledgerline/service-kit';
import { CAMT053_NAMESPACE, CAMT_ARRAYS, parseCamt053 } from './camt053.js';
import { parseGpc } from './gpc.js';
import { parseMt940 } from './mt940.js';
import { badStatement, type ParsedStatement, type StatementFormat } from './statement.js';

/*
 * A statement file as it arrives (bytes) to the statements in it: its format named by the caller
 * or recognised (`auto`), its text decoded as the format is written (GPC in UTF-8 or, failing that,
 * windows-1250; camt.053 in UTF-8; MT940 in UTF-8 or, failing that, windows-1250 for Central
 * European accounts and ISO-8859-1 for the others).
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });
const cp1250 = new TextDecoder('windows-1250');

function stripBom(bytes: Uint8Array): Uint8Array {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}

const latin1 = new TextDecoder('windows-1252');
/** Countries whose banks write MT940 in windows-1250 when not in UTF-8; the others' in ISO-8859-1 (read as its superset windows-1252). */
const CENTRAL_EUROPE = new Set(['CZ', 'SK', 'PL', 'HU', 'SI', 'HR', 'RO', 'BA', 'RS', 'AL']);

/**
 * An MT940 file that is not UTF-8: windows-1250 for Central European accounts (an IBAN of those
 * countries, or a domestic number), ISO-8859-1 for the rest. The two agree on ASCII and on
 * German letters, and differ on the letters that would show the wrong one (è and č).
 */
function decodeMt940Legacy(bytes: Uint8Array): string {
  const text = cp1250.decode(bytes);
  const country = /^:25:\s*([A-Z]{2})\d{2}/m.exec(text)?.[1];
  return country && !CENTRAL_EUROPE.has(country) ? latin1.decode(bytes) : text;
}

/** The formats a statement file comes in (`fio` is fetched from the bank, not a file). */
type FileFormat = Exclude<StatementFormat, 'fio'>;

/** The format of a file by its first bytes: XML, a GPC header, or MT940 fields. */
export function recogniseFormat(bytes: Uint8Array): FileFormat {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const head = cp1250.decode(bytes.subarray(bom, 4096)).trimStart();
  if (head.startsWith('<')) return 'camt053';
  if (/^074\d{16}/.test(head)) return 'gpc';
  // the SWIFT envelope, or a :20: line near the top (after a bank's preamble: its BIC, `940`)
  if (/^\{1:/.test(head) || /^:20:/m.test(head)) return 'mt940';
  throw badStatement('The file is not a statement we read: camt.053 XML, GPC (074/075 records) or MT940 (:20: … :62F:)', 'body');
}

export function readStatementFile(bytes: Uint8Array, format: FileFormat | 'auto', fallbackCurrency: string): ParsedStatement[] {
  if (bytes.length === 0) throw badStatement('The statement file is empty', 'body');
  const chosen = format === 'auto' ? recogniseFormat(bytes) : format;
  // GPC: windows-1250 as the layout says, or UTF-8 as some banks now export it
  const text = chosen === 'gpc' ? (decodeUtf8(stripBom(bytes)) ?? cp1250.decode(stripBom(bytes))) : chosen === 'camt053' ? decodeUtf8(bytes) : (decodeUtf8(bytes) ?? decodeMt940Legacy(bytes));
  if (text === null) throw badStatement('The camt.053 document is not UTF-8', 'body');
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw badStatement(`The file holds a NUL character (line ${text.slice(0, nul).split('\n').length})`, `line ${text.slice(0, nul).split('\n').length}`);
  switch (chosen) {
    case 'camt053': {
      const doc = readXmlDocument(text, CAMT_ARRAYS, 'statement');
      if (doc.name !== 'Document' || !doc.namespace || !CAMT053_NAMESPACE.test(doc.namespace)) {
        throw badStatement(`The root element is ${doc.name ?? 'missing'}${doc.namespace ? ` in ${doc.namespace}` : ''}; expected a camt.053.001.02–08 Document`, 'body');
      }
      return parseCamt053(doc.root);
    }
    case 'gpc':
      return parseGpc(text, fallbackCurrency);
    case 'mt940':
      return parseMt940(text, fallbackCurrency);
  }
}
