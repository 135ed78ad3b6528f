import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/*
 * The reference schemas and examples of the standards bodies (UBL 2.1, ISDOC 6.0.2, the official
 * Peppol examples): tests validate generated documents against them with Debian's xmllint. The
 * machine that runs the tests provides them (EINVOICE_DIR); they are not copied into the repository.
 */

const root = path.resolve(import.meta.dirname, '../..');

/** Where the reference files are: EINVOICE_DIR, else where the test machines keep them. */
export function einvoiceDir(): string {
  const candidates = [process.env.EINVOICE_DIR, path.resolve(root, '../shared/einvoice'), '/work/shared/einvoice'].filter(Boolean) as string[];
  const found = candidates.find((d) => existsSync(path.join(d, 'ubl-2.1/maindoc/UBL-Invoice-2.1.xsd')));
  if (!found) throw new Error(`the e-invoice reference files are missing: set EINVOICE_DIR (looked in ${candidates.join(', ')})`);
  return found;
}

export const UBL_INVOICE_XSD = () => path.join(einvoiceDir(), 'ubl-2.1/maindoc/UBL-Invoice-2.1.xsd');
export const UBL_CREDIT_NOTE_XSD = () => path.join(einvoiceDir(), 'ubl-2.1/maindoc/UBL-CreditNote-2.1.xsd');

/** Schema errors of `xml` against `xsd` (empty when valid), from xmllint. */
export function schemaErrors(xml: string, xsd: string): string[] {
  const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsd, '-'], { input: xml, encoding: 'utf8' });
  if (r.error) throw new Error(`xmllint is not installed (Debian: libxml2-utils): ${r.error.message}`);
  if (r.status === 0) return [];
  return r.stderr.split('\n').filter((l) => l.trim() && !l.endsWith('validates') && !l.includes('fails to validate'));
}

/**
 * Schema errors of many documents against one `xsd`, by name (only those with errors): one
 * xmllint reads the schema once for all of them, where a run per document spends about a quarter
 * of a second reading the UBL schemas each time.
 */
export function schemaErrorsOfEach(documents: ReadonlyMap<string, string>, xsd: string): Record<string, string[]> {
  if (documents.size === 0) return {};
  const dir = mkdtempSync(path.join(tmpdir(), 'll-xsd-'));
  try {
    const files = new Map<string, string>();
    for (const [name, xml] of documents) {
      const file = path.join(dir, `${files.size}.xml`);
      writeFileSync(file, xml);
      files.set(file, name);
    }
    const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsd, ...files.keys()], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.error) throw new Error(`xmllint is not installed (Debian: libxml2-utils): ${r.error.message}`);
    const errors: Record<string, string[]> = {};
    let current: string | undefined;
    for (const line of r.stderr.split('\n')) {
      if (!line.trim()) continue;
      const file = [...files.keys()].find((f) => line.startsWith(f));
      if (file) current = files.get(file);
      if (line.endsWith(' validates')) continue;
      if (line.endsWith(' fails to validate')) {
        errors[current!] ??= [];
        continue;
      }
      // an error line names its file; a line that does not continues the one before it
      (errors[current ?? '(xmllint)'] ??= []).push(file ? line.slice(file.length) : line);
    }
    if (r.status !== 0 && Object.keys(errors).length === 0) errors['(xmllint)'] = [`xmllint exited ${r.status}: ${r.stderr.slice(0, 500)}`];
    return errors;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of every element named `name` (a local name, any prefix), in document order. */
export function xmlValues(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<(?:[\\w-]+:)?${name}(?:\\s[^>]*)?>([^<]*)</(?:[\\w-]+:)?${name}>`, 'g'))].map((m) => m[1]);
}

export const ISDOC_XSD = () => path.join(einvoiceDir(), 'isdoc-6.0.2/isdoc-invoice-6.0.2.xsd');

/**
 * The Czech tax office's EPO schemas (DPHKH1, DPHDP3, DPHSHV), reproduced byte for byte: EPO_DIR,
 * else where the test machines keep them beside the e-invoice references.
 */
export function epoDir(): string {
  const candidates = [process.env.EPO_DIR, path.resolve(root, '../shared/epo'), '/work/shared/epo'].filter(Boolean) as string[];
  const found = candidates.find((d) => existsSync(path.join(d, 'dphkh1_epo2.xsd')));
  if (!found) throw new Error(`the EPO schemas are missing: set EPO_DIR (looked in ${candidates.join(', ')})`);
  return found;
}
export const DPHKH1_XSD = () => path.join(epoDir(), 'dphkh1_epo2.xsd');

/** The attributes of every element named `name`, in document order (the EPO forms keep their data in attributes). */
export function xmlRecords(xml: string, name: string): Array<Record<string, string>> {
  return [...xml.matchAll(new RegExp(`<${name}((?:\\s+[\\w:-]+="[^"]*")*)\\s*/?>`, 'g'))].map((m) =>
    Object.fromEntries([...m[1].matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1], a[2].replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')])),
  );
}
export const DPHDP3_XSD = () => path.join(epoDir(), 'dphdp3_epo2.xsd');
export const DPHSHV_XSD = () => path.join(epoDir(), 'dphshv_epo2.xsd');
