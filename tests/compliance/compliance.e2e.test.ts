import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DATABASE_URL, eventually, startStack, type Stack } from '../support/stack.js';
import { complianceEvaluateResultSchema, salesInvoiceComplianceEvaluatedEventSchema } from '@ledgerline/contracts';
import { readEvents } from '../sales/helpers.js';

/**
 * POST /v1/sales/invoices/compliance/evaluate and GET /v1/sales/invoices/{id}/compliance
 * through the gateway, with settings and sales running on real Postgres and NATS.
 */
let stack: Stack;
let salesDb: pg.Client;
let sk: { key: string; orgId: number };
let pl: { key: string; orgId: number };

const VAT = { tax_code: 'S', tax_name: 'VAT 23 %', tax_rate: 23, rate_type: 'standard', tax_index: 0 };
const SK_BUYER = { id: 9, business_name: 'Odberateľ a.s.', vat_no: 'SK7020000000', peppol_id: '9950:7020000000', address: { city: 'Bratislava', country: 'SK' } };

function skInvoice(over: Record<string, unknown> = {}) {
  return {
    customer: SK_BUYER,
    currency: 'EUR',
    date_issued: '2027-02-01',
    date_due: '2027-02-15',
    buyer_reference: 'PO-7781',
    items: [{ title: 'Consulting', qty: 10, rate: 100, taxes: [VAT] }],
    ...over,
  };
}

async function newOrganisation(profile: Record<string, unknown>) {
  const res = await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: profile });
  expect(res.status).toBe(200);
  const body = await res.json() as any;
  return { key: body.admin_key.key as string, orgId: body.organisation.id as number };
}

/** The sales replica of the organisation profile has arrived (invoices carry its issuer snapshot). */
async function replicaArrived(orgId: number, field: string, value: string) {
  await eventually(async () => {
    const r = await salesDb.query(`select profile->>'${field}' as v from kit_organisations where org_id = $1`, [orgId]);
    const v = r.rows[0]?.v;
    return v === value || (typeof v === 'string' && v.startsWith('{') && JSON.stringify(JSON.parse(v)) === value);
  }, 10_000);
}

async function postInvoice(json: unknown, key?: string): Promise<number> {
  const res = await stack.api('/v1/sales/invoices', { method: 'POST', json, key });
  expect(res.status).toBe(200);
  return (await res.json() as any).id;
}

async function evaluate(ids: unknown, key?: string) {
  return stack.api('/v1/sales/invoices/compliance/evaluate', { method: 'POST', json: ids, key });
}

beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
  salesDb = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}sales`) });
  await salesDb.connect();
  sk = await newOrganisation({
    name: 'Dodávateľ s.r.o.',
    country: 'SK',
    legal_currency: 'EUR',
    is_vat_payer: true,
    vat_no: 'SK2020123456',
    peppol_id: '9950:2020123456',
    bank_account: { iban: 'SK3112000000198742637541', bic: 'TATRSKBX' },
  });
  pl = await newOrganisation({ name: 'Sprzedawca sp. z o.o.', country: 'PL', legal_currency: 'PLN', vat_no: 'PL5260001246' });
  await replicaArrived(sk.orgId, 'peppol_id', '9950:2020123456');
  await replicaArrived(pl.orgId, 'vat_no', 'PL5260001246');
  await replicaArrived(1, 'country', 'CZ');
});

afterAll(async () => {
  await salesDb?.end();
  await stack?.close();
});

describe('POST /v1/sales/invoices/compliance/evaluate evaluation through the gateway', () => {
  it('a Czech domestic invoice: evaluated, no reporting, eligible, e-mail and PDF allowed (202)', async () => {
    const id = await postInvoice({
      customer: { id: 1, business_name: 'Acme s.r.o.', vat_no: 'CZ12345678', address: { country: 'CZ' } },
      currency: 'CZK',
      date_issued: '2026-11-20',
      items: [{ title: 'Work', qty: 1, rate: 1000, taxes: [{ tax_code: 'S21', tax_rate: 21 }] }],
    });
    const res = await evaluate([id]);
    expect(res.status).toBe(202);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const [record] = await res.json() as any;
    expect(record).toEqual({
      invoice_id: id,
      compliance: {
        status: 'evaluated',
        reporting_method: 'no_reporting',
        delivery_eligibility: 'eligible',
        required_action: 'none',
        allowed_actions: { send_email: true, download_pdf: true, send_via_peppol: false, submit_to_tax_authority: false },
        evaluated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        blocking_reason: null,
      },
    });
  });

  it('Slovak B2B: one record per entry in request order, unknown ids blocked as invoice_not_found, stored and announced', async () => {
    const complete = await postInvoice(skInvoice(), sk.key);
    const noPeppol = await postInvoice(skInvoice({ customer: { ...SK_BUYER, peppol_id: null } }), sk.key);
    const in2026 = await postInvoice(skInvoice({ date_issued: '2026-12-01', date_due: '2026-12-15' }), sk.key);
    const unknown = 987_654_321;

    const res = await evaluate([complete, noPeppol, unknown, in2026, complete], sk.key);
    expect(res.status).toBe(202);
    const records = await res.json() as any;
    expect(complianceEvaluateResultSchema.safeParse(records).success).toBe(true);
    expect(records.map((r: { invoice_id: number }) => r.invoice_id)).toEqual([complete, noPeppol, unknown, in2026, complete]);
    expect(records[0].compliance).toMatchObject({
      status: 'evaluated',
      reporting_method: 'reporting_by_delivery',
      delivery_eligibility: 'eligible_via_required_channel',
      required_action: 'send_via_peppol',
      allowed_actions: { send_email: false, download_pdf: true, send_via_peppol: true, submit_to_tax_authority: false },
      blocking_reason: null,
    });
    expect(records[1].compliance).toMatchObject({ status: 'blocked', blocking_reason: 'PEPPOL-EN16931-R010', required_action: 'send_via_peppol' });
    expect(records[2].compliance).toEqual({
      status: 'blocked',
      reporting_method: null,
      delivery_eligibility: null,
      required_action: null,
      allowed_actions: null,
      evaluated_at: expect.any(String),
      blocking_reason: 'invoice_not_found',
    });
    expect(records[3].compliance).toMatchObject({ status: 'evaluated', reporting_method: 'no_reporting', delivery_eligibility: 'eligible', required_action: 'none' });
    expect(records[4]).toEqual(records[0]);

    // Stored: one row per distinct evaluated invoice, none for the unknown id.
    const rows = await salesDb.query('select invoice_id, status, rule_id, failed_checks from compliance_records where org_id = $1 order by id', [sk.orgId]);
    expect(rows.rows.map((r) => [Number(r.invoice_id), r.status, r.rule_id])).toEqual([
      [complete, 'evaluated', 'sk-2027-peppol-reporting'],
      [noPeppol, 'blocked', 'sk-2027-peppol-reporting'],
      [in2026, 'evaluated', 'default'],
    ]);
    expect(rows.rows[1].failed_checks).toEqual(['PEPPOL-EN16931-R010']);

    // Announced: sales.invoice.compliance_evaluated for each, carrying the record.
    const events = await eventually(async () => {
      const evs = (await readEvents(stack, 'SALES', 'sales.invoice.compliance_evaluated')).filter((e) => e.orgid === String(sk.orgId));
      return evs.length >= 3 ? evs : null;
    });
    expect(events.map((e) => e.data.invoice_id).sort()).toEqual([complete, noPeppol, in2026].sort());
    const ev = events.find((e) => e.data.invoice_id === noPeppol)!;
    expect(ev.subject).toBe(String(noPeppol));
    expect(ev.data).toEqual(records[1]);
    expect(ev.type).toMatch(/compliance_evaluated/);
    for (const e of events) expect(salesInvoiceComplianceEvaluatedEventSchema.safeParse(e.data).success).toBe(true);

    // GET reads the latest record.
    const latest = await stack.api(`/v1/sales/invoices/${noPeppol}/compliance`, { key: sk.key });
    expect(latest.status).toBe(200);
    expect(await latest.json() as any).toEqual(records[1]);

    // A batch in another order than the invoices' ids and dates is stored in its own order.
    await evaluate([noPeppol, in2026, complete], sk.key);
    const again = await salesDb.query('select invoice_id from compliance_records where org_id = $1 order by id desc limit 3', [sk.orgId]);
    expect(again.rows.map((r) => Number(r.invoice_id)).reverse()).toEqual([noPeppol, in2026, complete]);
  });

  it('GET answers the latest evaluation after the data was fixed, and 404 when never evaluated or in another organisation', async () => {
    const id = await postInvoice(skInvoice({ buyer_reference: null }), sk.key);
    const [first] = await (await evaluate([id], sk.key)).json() as any;
    expect(first.compliance.blocking_reason).toBe('PEPPOL-EN16931-R003');
    // The organisation loses its bank account: a second evaluation names both rules.
    await stack.api('/v1/settings/organisation', { method: 'PUT', key: sk.key, json: { bank_account: null } });
    await eventually(async () => (await salesDb.query(`select profile->'bank_account' as b from kit_organisations where org_id = $1`, [sk.orgId])).rows[0]?.b === null);
    await evaluate([id], sk.key);
    const latest = await (await stack.api(`/v1/sales/invoices/${id}/compliance`, { key: sk.key })).json() as any;
    expect(latest.compliance.blocking_reason).toBe('PEPPOL-EN16931-R003, BR-61');
    await stack.api('/v1/settings/organisation', { method: 'PUT', key: sk.key, json: { bank_account: { iban: 'SK3112000000198742637541' } } });
    await replicaArrived(sk.orgId, 'bank_account', JSON.stringify({ iban: 'SK3112000000198742637541' }));

    const never = await postInvoice(skInvoice(), sk.key);
    const none = await stack.api(`/v1/sales/invoices/${never}/compliance`, { key: sk.key });
    expect(none.status).toBe(404);
    expect((await none.json() as any).code).toBe('compliance_record_not_found');
    // Another organisation sees neither the invoice nor its record.
    expect((await stack.api(`/v1/sales/invoices/${id}/compliance`)).status).toBe(404);
    const [foreign] = await (await evaluate([id])).json() as any;
    expect(foreign.compliance.blocking_reason).toBe('invoice_not_found');
  });

  it('a Polish domestic B2B invoice is blocked naming KSeF', async () => {
    const id = await postInvoice(
      {
        customer: { id: 3, business_name: 'Nabywca S.A.', vat_no: 'PL1234567890', address: { country: 'PL' } },
        currency: 'PLN',
        date_issued: '2026-11-20',
        items: [{ title: 'Towar', qty: 1, rate: 100, taxes: [{ tax_code: 'S', tax_rate: 23 }] }],
      },
      pl.key,
    );
    const [record] = await (await evaluate([id], pl.key)).json() as any;
    expect(record.compliance).toMatchObject({ status: 'blocked', blocking_reason: 'national_platform_required:KSeF', reporting_method: null });
  });

  it('a French large enterprise (profile flag) must use a PA from 2026-09-01; the same firm not flagged may e-mail', async () => {
    const fr = await newOrganisation({ name: 'Vendeur SA', country: 'FR', legal_currency: 'EUR', vat_no: 'FR40303265045', is_large_enterprise: true });
    const profile = await (await stack.api('/v1/settings/organisation', { key: fr.key })).json() as any;
    expect(profile.is_large_enterprise).toBe(true);
    await replicaArrived(fr.orgId, 'is_large_enterprise', 'true');
    const frInvoice = {
      customer: { id: 4, business_name: 'Acheteur SARL', vat_no: 'FR83404833048', address: { country: 'FR' } },
      currency: 'EUR',
      date_issued: '2026-11-20',
      items: [{ title: 'Prestation', qty: 1, rate: 100, taxes: [{ tax_code: 'S', tax_rate: 20 }] }],
    };
    const id = await postInvoice(frInvoice, fr.key);
    const [large] = await (await evaluate([id], fr.key)).json() as any;
    expect(large.compliance).toMatchObject({ status: 'blocked', blocking_reason: 'national_platform_required:PA' });

    const res = await stack.api('/v1/settings/organisation', { method: 'PUT', key: fr.key, json: { is_large_enterprise: false } });
    expect(res.status).toBe(200);
    await replicaArrived(fr.orgId, 'is_large_enterprise', 'false');
    const [small] = await (await evaluate([id], fr.key)).json() as any;
    expect(small.compliance).toMatchObject({ status: 'evaluated', blocking_reason: null, allowed_actions: { send_email: true } });
  });

  it('refuses 0 or 1001 entries, a non-array body and non-integer ids with 400, storing nothing', async () => {
    const before = (await salesDb.query('select count(*)::int as n from compliance_records')).rows[0].n;
    for (const [body, path] of [
      [[], '(root)'],
      [Array.from({ length: 1001 }, (_, i) => i + 1), '(root)'],
      [{ ids: [1] }, '(root)'],
      [['1'], '[0]'],
      [[1, 2.5], '[1]'],
      [[0], '[0]'],
    ] as const) {
      const res = await evaluate(body, sk.key);
      expect(res.status).toBe(400);
      const problem = await res.json() as any;
      expect(problem.code).toBe('validation_error');
      expect(problem.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await salesDb.query('select count(*)::int as n from compliance_records')).rows[0].n).toBe(before);
  });

  it('evaluates a batch of 1000 ids (600 invoices, 400 unknown) correctly in one request', async () => {
    const template = await postInvoice(skInvoice(), sk.key);
    // Seed 599 more invoices by copying the stored one (fixture only; the service reads them as its own).
    await salesDb.query(
      `insert into sales_documents (uid, org_id, doc_type, no, counter_id, customer_id, customer_name, currency, precision, date_issued, date_due,
         notes, subtotal_amount, tax_amount, total_amount, amount_paid, amount_due, payment_status, body)
       select gen_random_uuid(), org_id, doc_type, 'BULK-' || g, counter_id, customer_id, customer_name, currency, precision,
         case when g % 2 = 0 then date '2026-12-01' else date_issued end, date_due,
         notes, subtotal_amount, tax_amount, total_amount, amount_paid, amount_due, payment_status,
         case when g % 3 = 0 then jsonb_set(body::jsonb, '{customer,peppol_id}', 'null')::json else body end
       from sales_documents, generate_series(1, 599) g where id = $1`,
      [template],
    );
    const seeded = (await salesDb.query(`select id, date_issued::text as d, body->'customer'->>'peppol_id' as p from sales_documents where org_id = $1 and no like 'BULK-%' order by id`, [sk.orgId])).rows;
    expect(seeded).toHaveLength(599);
    const expected = new Map<number, string>([[template, 'evaluated:reporting_by_delivery']]);
    for (const r of seeded) {
      expected.set(Number(r.id), r.d < '2027-01-01' ? 'evaluated:no_reporting' : r.p ? 'evaluated:reporting_by_delivery' : 'blocked:reporting_by_delivery');
    }
    const real = [...expected.keys()];
    // Interleaved: three invoices, then two ids no invoice has.
    const ids: number[] = [];
    let k = 0;
    for (let i = 0; i < 1000; i++) ids.push(i % 5 < 3 ? real[k++] : 2_000_000_000 + i);
    expect(k).toBe(600);

    const before = (await salesDb.query('select count(*)::int as n from compliance_records where org_id = $1', [sk.orgId])).rows[0].n;
    const started = performance.now();
    const res = await evaluate(ids, sk.key);
    const ms = performance.now() - started;
    expect(res.status).toBe(202);
    const records: Array<{ invoice_id: number; compliance: { status: string; reporting_method: string | null; blocking_reason: string | null } }> = await res.json() as any;
    expect(records).toHaveLength(1000);
    expect(records.map((r) => r.invoice_id)).toEqual(ids);
    for (const r of records) {
      const want = expected.get(r.invoice_id);
      if (want === undefined) expect(r.compliance.blocking_reason).toBe('invoice_not_found');
      else expect(`${r.compliance.status}:${r.compliance.reporting_method}`).toBe(want);
    }
    const after = (await salesDb.query('select count(*)::int as n from compliance_records where org_id = $1', [sk.orgId])).rows[0].n;
    expect(after - before).toBe(600);
    process.stderr.write(`compliance: 1000-id batch answered in ${ms.toFixed(0)} ms through the gateway\n`);
  });
});
