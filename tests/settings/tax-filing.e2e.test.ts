import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { COMPANY_FILER } from '../support/tax-filing.js';

/*
 * The filer's data for the tax office's forms (issue 57) through the gateway: set whole and read
 * back, validated against what the EPO forms allow (tax office code, lengths, data box id), and
 * kept per organisation.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: [] });
}, 60_000);
afterAll(async () => stack?.close());

const put = (json: unknown, key?: string) => stack.api('/v1/settings/tax-filing', { method: 'PUT', json, key });
const COMPANY = COMPANY_FILER;

describe('tax filing settings', () => {
  it('are not set at first: 404 naming how to set them', async () => {
    const problem = await expectProblem(await stack.api('/v1/settings/tax-filing'), 404, 'tax_filing_settings_not_found');
    expect(problem.detail).toContain('PUT /v1/settings/tax-filing');
  });

  it('are set whole and read back; a second PUT replaces them', async () => {
    const saved = await ok(await put(COMPANY));
    expect(saved).toEqual({ ...COMPANY, natural_person: null, reverse_charge_code: null, updated_at: expect.any(String) });
    expect(await ok(await stack.api('/v1/settings/tax-filing'))).toEqual(saved);
    const person = { tax_office: '12', filer_type: 'natural_person', natural_person: { first_name: 'Petr', last_name: 'Dvořák', title: 'Ing.' }, period: 'quarterly' };
    expect(await ok(await put(person))).toMatchObject({ ...person, signatory: null, prepared_by: null, phone: null, email: null, data_box: null, tax_office_workplace: null });
  });

  it('refuse what the forms do not allow, naming each field, and change nothing', async () => {
    const before = await ok(await stack.api('/v1/settings/tax-filing'));
    const cases: Array<[unknown, string]> = [
      [{ ...COMPANY, tax_office: '4510' }, 'tax_office'],
      [{ ...COMPANY, tax_office: '45a' }, 'tax_office'],
      [{ ...COMPANY, tax_office_workplace: '20011' }, 'tax_office_workplace'],
      [{ ...COMPANY, filer_type: 'company' }, 'filer_type'],
      [{ ...COMPANY, signatory: null }, 'signatory'],
      [{ ...COMPANY, filer_type: 'natural_person' }, 'natural_person'],
      [{ ...COMPANY, signatory: { ...COMPANY.signatory, first_name: 'x'.repeat(21) } }, 'signatory.first_name'],
      [{ ...COMPANY, phone: '+420 222 333 444' }, 'phone'],
      [{ ...COMPANY, email: 'not-an-address' }, 'email'],
      [{ ...COMPANY, data_box: 'AB12CD3' }, 'data_box'],
      [{ ...COMPANY, period: 'yearly' }, 'period'],
      [{ ...COMPANY, signatory: { ...COMPANY.signatory, position: 'jed\u0000natel' } }, 'signatory.position'],
      [{ ...COMPANY, tax_office: undefined }, 'tax_office'],
      [{ ...COMPANY, reverse_charge_code: '4a' }, 'reverse_charge_code'],
    ];
    for (const [body, path] of cases) {
      const problem = await expectProblem(await put(body), 400);
      expect(problem.errors?.map((e) => e.path), JSON.stringify(body)).toContain(path);
    }
    await expectProblem(await put([]), 400);
    await expectProblem(await stack.api('/v1/settings/tax-filing', { method: 'PUT', body: '{"tax_office": "451"', headers: { 'content-type': 'application/json' } }), 400);
    expect(await ok(await stack.api('/v1/settings/tax-filing'))).toEqual(before);
  });

  it("are each organisation's own, and a read-only key cannot change them", async () => {
    const other = await secondOrganisation(stack, 'Jiná s.r.o.');
    await expectProblem(await stack.api('/v1/settings/tax-filing', { key: other.key }), 404, 'tax_filing_settings_not_found');
    const reader = (await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['settings:read'] } }))).key;
    const before = await ok(await stack.api('/v1/settings/tax-filing', { key: reader }));
    await expectProblem(await put(COMPANY, reader), 403, 'insufficient_scope');
    expect(await ok(await stack.api('/v1/settings/tax-filing'))).toEqual(before);
  });
});
