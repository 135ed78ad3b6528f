import { describe, expect, it } from 'vitest';
import { mediaPathsOf } from './media-paths.js';

const matches = (patterns: RegExp[], path: string) => patterns.some((p) => p.test(path));

describe('media paths from the route table', () => {
  it("sales: the renderings and e-invoices skip JSON negotiation, the documents' JSON does not", () => {
    const { nonJsonPaths, xmlBodyPaths, fileBodyPaths, formBodyPaths } = mediaPathsOf('sales');
    for (const p of ['/v1/sales/invoices/7/pdf', '/v1/sales/invoices/7/html', '/v1/sales/invoices/7/ubl', '/v1/sales/credit-notes/7/isdoc', '/v1/sales/credit-notes/7/html']) {
      expect(matches(nonJsonPaths, p), p).toBe(true);
    }
    for (const p of ['/v1/sales/invoices/7', '/v1/sales/invoices', '/v1/sales/invoices/7/pdf/x', '/v1/sales/invoices/7/email']) expect(matches(nonJsonPaths, p), p).toBe(false);
    expect([xmlBodyPaths, fileBodyPaths, formBodyPaths]).toEqual([[], [], []]);
  });

  it('an export that answers JSON or CSV by its format skips negotiation for csv only', () => {
    const { nonJsonPaths } = mediaPathsOf('accounting');
    expect(matches(nonJsonPaths, '/v1/reporting/financial/trial-balance/1/export/csv')).toBe(true);
    expect(matches(nonJsonPaths, '/v1/reporting/financial/trial-balance/1/export/json')).toBe(false);
    expect(matches(mediaPathsOf('purchase').nonJsonPaths, '/v1/inventory/in/export/csv')).toBe(true);
    expect(matches(mediaPathsOf('purchase').nonJsonPaths, '/v1/inventory/in/export/json')).toBe(false);
  });

  it('request media types: the e-invoice import takes XML text, the statement import a file, the token endpoint a form', () => {
    expect(mediaPathsOf('purchase').xmlBodyPaths.map(String)).toEqual(['/^\\/v1\\/purchase\\/bills\\/import$/']);
    expect(mediaPathsOf('finance').fileBodyPaths.map(String)).toEqual(['/^\\/v1\\/finance\\/bank\\/statements$/']);
    expect(mediaPathsOf('finance').xmlBodyPaths).toEqual([]);
    expect(mediaPathsOf('settings').formBodyPaths.map(String)).toEqual(['/^\\/v1\\/oauth\\/token$/']);
  });
});
