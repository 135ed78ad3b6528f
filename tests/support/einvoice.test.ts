import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { einvoiceDir, schemaErrors, schemaErrorsOfEach, UBL_INVOICE_XSD } from './einvoice.js';

/* The schema checks the e-invoice tests rely on: a check that passed everything would hide every defect. */
describe('schema checks of generated documents', () => {
  const valid = readFileSync(path.join(einvoiceDir(), 'examples/peppol-Vat-category-S.xml'), 'utf8');
  // an element the UBL schema does not allow where it stands
  const broken = valid.replace('<cbc:IssueDate>', '<cbc:Unknown>x</cbc:Unknown><cbc:IssueDate>');

  it('one document: the official example validates, a broken copy does not', () => {
    expect(schemaErrors(valid, UBL_INVOICE_XSD())).toEqual([]);
    expect(schemaErrors(broken, UBL_INVOICE_XSD()).join('\n')).toMatch(/Unknown/);
  });

  it('many documents in one run: only the broken ones are named, each with its own errors', () => {
    const errors = schemaErrorsOfEach(new Map([['first', valid], ['second', broken], ['third', valid], ['fourth', broken.replaceAll('Unknown', 'Other')]]), UBL_INVOICE_XSD());
    expect(Object.keys(errors).sort()).toEqual(['fourth', 'second']);
    expect(errors.second.join('\n')).toMatch(/Unknown/);
    expect(errors.fourth.join('\n')).toMatch(/Other/);
    expect(errors.fourth.join('\n')).not.toMatch(/Unknown/);
    expect(schemaErrorsOfEach(new Map([['a', valid], ['b', valid]]), UBL_INVOICE_XSD())).toEqual({});
  });
});
