import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@ledgerline/service-kit';
import { DEFAULT_RULES } from '@ledgerline/compliance';
import { salesService } from '../../apps/sales/src/service.js';
import { isolation, startStack, startTestService, type Stack } from '../support/stack.js';

/*
 * COMPLIANCE_RULES_FILE: an operator replaces the shipped rule table with a JSON file, validated at
 * boot like the shipped one.
 */
let stack: Stack;
let dir: string;

const customTable = [
  {
    id: 'cz-review',
    description: 'Czech domestic B2B invoices wait for a manual review (a table of our own)',
    when: { seller_country: ['CZ'], domestic: true, b2b: true, valid_from: '2026-01-01' },
    then: { kind: 'block', blocking_reason: 'custom:cz-review', allowed_actions: { send_email: false, download_pdf: true, send_via_peppol: false, submit_to_tax_authority: false } },
  },
  DEFAULT_RULES[DEFAULT_RULES.length - 1],
];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-rules-'));
  await writeFile(path.join(dir, 'rules.json'), JSON.stringify(customTable));
  stack = await startStack({ services: ['sales'], env: { COMPLIANCE_RULES_FILE: path.join(dir, 'rules.json') } });
});
afterAll(async () => {
  await stack?.close();
});

describe('COMPLIANCE_RULES_FILE', () => {
  it('evaluates with the table from the file', async () => {
    const inv = await (
      await stack.api('/v1/sales/invoices', {
        method: 'POST',
        json: {
          customer: { id: 1, business_name: 'Acme s.r.o.', vat_no: 'CZ12345678', address: { country: 'CZ' } },
          currency: 'CZK',
          date_issued: '2026-11-20',
          items: [{ title: 'Work', qty: 1, rate: 1000, taxes: [{ tax_code: 'S21', tax_rate: 21 }] }],
        },
      })
    ).json();
    const res = await stack.api('/v1/sales/invoices/compliance/evaluate', { method: 'POST', json: [inv.id] });
    expect(res.status).toBe(202);
    const [record] = await res.json();
    expect(record.compliance).toMatchObject({ status: 'blocked', blocking_reason: 'custom:cz-review', allowed_actions: { send_email: false, download_pdf: true } });
  });

  it.each([
    ['a table whose last row has conditions', JSON.stringify([customTable[0]]), /is not a rule table: \(table\): the last row must have no conditions/],
    ['a row with an unknown outcome', JSON.stringify([{ ...customTable[0], then: { kind: 'maybe' } }, customTable[1]]), /is not a rule table: 0\.then\.kind/],
    ['not JSON', '{ rules: ', /COMPLIANCE_RULES_FILE .*bad\.json: .*JSON/],
  ])('stops the service at boot on %s, naming the file and the problem', async (_name, content, message) => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, content);
    const start = startTestService(salesService, { ...isolation(), COMPLIANCE_RULES_FILE: file });
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    await expect(start).rejects.toThrow(message);
  });

  it('stops the service at boot when the file is missing', async () => {
    await expect(startTestService(salesService, { ...isolation(), COMPLIANCE_RULES_FILE: path.join(dir, 'missing.json') })).rejects.toThrow(/missing\.json: ENOENT/);
  });
});
