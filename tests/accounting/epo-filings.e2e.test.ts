import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { billBody } from '../purchase/fixtures.js';
import { DPHDP3_XSD, DPHKH1_XSD, DPHSHV_XSD, schemaErrors, xmlRecords } from '../support/einvoice.js';
import { secondOrganisation } from '../finance/support.js';
import { COMPANY_FILER } from '../support/tax-filing.js';

/*
 * The control statement as the tax office takes it (issue 57): October with domestic sales above
 * and below the 10 000 CZK threshold, a credit note, a domestic reverse-charge sale and purchase,
 * an EU supply and an export (in no section), and purchases above and below the threshold. The
 * service received from another member state and one from the United States (A.2), the DPHKH1 filing validates against the
 * official schema and carries the JSON report's figures; a
 * corrective and a follow-up filing carry a document posted late.
 */

let stack: Stack;
const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
const VAT12 = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12, rate_type: 'reduced', tax_index: 1 };
const RC = { tax_code: 'RC', tax_name: 'Reverse charge', tax_rate: 21, rate_type: 'reverse_charge', tax_index: 0 };
const RC_SALE = { tax_code: 'RC', tax_name: 'Reverse charge', tax_rate: 0, rate_type: 'reverse_charge', tax_index: 0 };
const PAYER = { id: 9401, business_name: 'Plátce s.r.o.', vat_no: 'CZ11223344', address: { country: 'CZ' } };
const CONSUMER = { id: 9402, business_name: 'Jan Novák', address: { country: 'CZ' } };
const EU_CUSTOMER = { id: 9403, business_name: 'Kunde GmbH', vat_no: 'DE123456789', address: { country: 'DE' } };
const US_CUSTOMER = { id: 9404, business_name: 'Customer Inc.', address: { country: 'US' } };
const BUILDER = { id: 9405, business_name: 'Stavby a.s.', vat_no: 'CZ45274649', address: { country: 'CZ' } };
const EU_VENDOR = { id: 9406, business_name: 'Software GmbH', vat_no: 'DE811907980', address: { country: 'DE' } };
const EU_SERVICE = { tax_code: 'RC', tax_name: 'Reverse charge (services)', tax_rate: 21, rate_type: 'services', tax_index: 0 };
const US_VENDOR = { id: 9407, business_name: 'Cloud Inc.', address: { country: 'US' } };
const OCTOBER = 'date_from=2026-10-01&date_to=2026-10-31';
const FILER = { ...COMPANY_FILER, reverse_charge_code: '4' };

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (path: string, json: unknown) => ok(await stack.api(path, { method: 'POST', json }));
const invoice = (date: string, customer: unknown, items: unknown[]) => post('/v1/sales/invoices', { customer, currency: 'CZK', date_issued: date, date_due: '2026-12-31', items });
const line = (rate: number, tax: unknown = VAT21) => ({ title: 'Service', qty: 1, rate, taxes: [tax] });
const filing = async (query: string, headers: Record<string, string> = {}, report = 'control-statement') => {
  const res = await stack.api(`/v1/reporting/tax/${report}?${query}`, { headers });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/xml');
  return res.text();
};
const money = (v: number) => v.toFixed(2);
/** Files a form of October (POST /v1/reporting/tax/filings): the filing kept as filed. */
const file = async (form: string, extra: Record<string, unknown> = {}, key?: string) =>
  ok(await stack.api('/v1/reporting/tax/filings', { method: 'POST', key, json: { form, date_from: '2026-10-01', date_to: '2026-10-31', ...extra } }));

describe('the control statement as an EPO filing (DPHKH1)', () => {
  it('needs the filer’s data first: 422 naming what is missing', async () => {
    const problem = await expectProblem(await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}&format=epo`), 422, 'tax_filing_incomplete');
    expect(problem.errors!.map((e) => e.path).sort()).toEqual(['organisation.vat_no', 'settings.tax_filing']);
    await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { vat_no: 'CZ27074358', address: { address1: 'Vinohradská 1234/56', city: 'Praha', postal_code: '120 00', country: 'CZ' } } }));
    await ok(await stack.api('/v1/settings/tax-filing', { method: 'PUT', json: FILER }));
  });

  it("validates against the tax office's schema and carries the report's figures", async () => {
    const large = await invoice('2026-10-03', PAYER, [line(10_000), line(1_000, VAT12)]);
    const credit = await post('/v1/sales/credit-notes', { customer: PAYER, currency: 'CZK', date_issued: '2026-10-10', credited_doc_id: large.id, items: [line(1_000)] });
    await invoice('2026-10-12', CONSUMER, [line(20_000)]);
    await invoice('2026-10-13', PAYER, [line(1_000), line(500, VAT12)]);
    const rcSale = await invoice('2026-10-14', PAYER, [line(50_000, RC_SALE)]);
    await invoice('2026-10-15', EU_CUSTOMER, [line(5_000, { tax_code: 'RC', tax_name: 'Reverse charge', tax_rate: 0, rate_type: 'services', tax_index: 0 })]);
    await invoice('2026-10-16', US_CUSTOMER, [line(7_000, { tax_code: 'E', tax_name: 'Export', tax_rate: 0, rate_type: 'zero', tax_index: 0 })]);
    const bill = await post('/v1/purchase/bills', billBody({ date_issued: '2026-10-15', date_due: '2026-10-29', vendor_doc_no: 'ACME-KH-1', items: [{ description: 'Server', qty: 1, rate: 20_000, taxes: [VAT21] }] }));
    await post('/v1/purchase/bills', billBody({ date_issued: '2026-10-16', date_due: '2026-10-30', vendor_doc_no: 'ACME-KH-2', items: [{ description: 'Cables', qty: 1, rate: 1_000, taxes: [VAT21] }] }));
    const rcBill = await post('/v1/purchase/bills', billBody({ vendor: BUILDER, date_issued: '2026-10-20', date_due: '2026-11-20', vendor_doc_no: 'STAV-2026-77', items: [{ description: 'Construction works', qty: 1, rate: 80_000, taxes: [RC] }] }));
    await post('/v1/purchase/bills', billBody({ vendor: EU_VENDOR, date_issued: '2026-10-21', date_due: '2026-11-21', vendor_doc_no: 'SW-2026-1001', items: [{ description: 'Licences', qty: 1, rate: 12_000, taxes: [EU_SERVICE] }] }));
    await post('/v1/purchase/bills', billBody({ vendor: US_VENDOR, date_issued: '2026-10-22', date_due: '2026-11-22', vendor_doc_no: 'US-77', items: [{ description: 'Hosting', qty: 1, rate: 3_000, taxes: [EU_SERVICE] }] }));
    await eventually(async () => ((await ok(await stack.api(`/v1/accounting/transactions?date_posting=[2026-10-01;2026-10-31]&take=0`))).total === 12 ? true : null), 15_000);

    const report = await ok(await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}`));
    expect(report.a1.map((d: any) => [d.document_no, d.base_basic])).toEqual([[rcSale.no, 50_000]]);
    expect(report.b1.map((d: any) => [d.document_no, d.base_basic, d.tax_basic])).toEqual([['STAV-2026-77', 80_000, 16_800]]);
    expect(report.a2.map((d: any) => [d.partner_vat_no, d.document_no, d.base_basic, d.tax_basic])).toEqual([
      ['DE811907980', 'SW-2026-1001', 12_000, 2_520],
      [null, 'US-77', 3_000, 630],
    ]);
    const xml = await filing(OCTOBER, { accept: 'application/xml' });
    expect(schemaErrors(xml, DPHKH1_XSD())).toEqual([]);
    if (process.env.SHOW_FILING) console.log(xml);
    expect(await filing(`${OCTOBER}&format=epo`)).toBe(xml);
    // previews keep nothing; filing keeps what the preview showed
    expect((await ok(await stack.api('/v1/reporting/tax/filings'))).total).toBe(0);
    const filed = await file('DPHKH1');
    expect(filed).toMatchObject({ form: 'DPHKH1', kind: 'B', date_from: '2026-10-01', date_to: '2026-10-31', tax: null, xml, sha256: createHash('sha256').update(xml).digest('hex') });

    expect(xmlRecords(xml, 'DPHKH1')).toEqual([{ verzePis: '03.01.14' }]);
    expect(xmlRecords(xml, 'VetaD')).toEqual([{ dokument: 'KH1', k_uladis: 'DPH', mesic: '10', rok: '2026', d_poddp: expect.stringMatching(/^\d\d\.\d\d\.\d{4}$/), khdph_forma: 'B' }]);
    expect(xmlRecords(xml, 'VetaP')[0]).toMatchObject({ c_ufo: '451', c_pracufo: '2001', dic: '27074358', typ_ds: 'P', ulice: 'Vinohradská', c_pop: '1234', c_orient: '56', naz_obce: 'Praha', psc: '12000', opr_postaveni: 'jednatel', sest_telef: '+420601123456' });
    // A.1: the reverse-charge sale, base only, under the organisation's subject code
    expect(xmlRecords(xml, 'VetaA1')).toEqual([{ c_radku: '1', dic_odb: '11223344', c_evid_dd: rcSale.no, duzp: '14.10.2026', zakl_dane1: '50000.00', kod_pred_pl: '4' }]);
    // A.2: the services received from Germany and from the United States, self-assessed
    expect(xmlRecords(xml, 'VetaA2')).toEqual([
      { c_radku: '1', k_stat: 'DE', vatid_dod: '811907980', c_evid_dd: 'SW-2026-1001', dppd: '21.10.2026', zakl_dane1: '12000.00', dan1: '2520.00' },
      { c_radku: '2', c_evid_dd: 'US-77', dppd: '22.10.2026', zakl_dane1: '3000.00', dan1: '630.00' },
    ]);
    // A.4 one by one as the report lists them; A.5 and B.3 summed
    expect(xmlRecords(xml, 'VetaA4')).toEqual(
      report.a4.map((d: any, i: number) => ({
        c_radku: String(i + 1),
        dic_odb: d.partner_vat_no.slice(2),
        c_evid_dd: d.document_no,
        dppd: d.date_taxable.split('-').reverse().join('.'),
        zakl_dane1: money(d.base_basic),
        dan1: money(d.tax_basic),
        ...(d.base_reduced ? { zakl_dane2: money(d.base_reduced), dan2: money(d.tax_reduced) } : {}),
        kod_rezim_pl: '0',
        zdph_44: 'N',
      })),
    );
    expect(xmlRecords(xml, 'VetaA4').map((r) => r.c_evid_dd)).toEqual([large.no, credit.no]);
    expect(xmlRecords(xml, 'VetaA5')).toEqual([{ zakl_dane1: money(report.a5.base_basic), dan1: money(report.a5.tax_basic), zakl_dane2: money(report.a5.base_reduced), dan2: money(report.a5.tax_reduced) }]);
    expect(xmlRecords(xml, 'VetaB1')).toEqual([{ c_radku: '1', dic_dod: '45274649', c_evid_dd: 'STAV-2026-77', duzp: '20.10.2026', zakl_dane1: '80000.00', dan1: '16800.00', kod_pred_pl: '4' }]);
    expect(xmlRecords(xml, 'VetaB2')).toEqual([{ c_radku: '1', dic_dod: '12345678', c_evid_dd: 'ACME-KH-1', dppd: '15.10.2026', zakl_dane1: '20000.00', dan1: '4200.00', pomer: 'N', zdph_44: 'N' }]);
    expect(xmlRecords(xml, 'VetaB3')).toEqual([{ zakl_dane1: money(report.b3.base_basic), dan1: money(report.b3.tax_basic) }]);
    // VetaC: A.4 + A.5 and B.2 + B.3 per rate, A.1 and B.1 — what the tax office compares with the VAT return
    const a4 = (k: string) => report.a4.reduce((s: number, d: any) => s + d[k], 0);
    expect(xmlRecords(xml, 'VetaC')).toEqual([
      {
        obrat23: money(a4('base_basic') + report.a5.base_basic),
        obrat5: money(a4('base_reduced') + report.a5.base_reduced),
        pln23: money(20_000 + report.b3.base_basic),
        pln5: '0.00',
        pln_rez_pren: '50000.00',
        rez_pren23: '80000.00',
        rez_pren5: '0.00',
        celk_zd_a2: '15000.00',
      },
    ]);
    expect(bill.no).toBeDefined();
    expect(rcBill.vendor_doc_no).toBe('STAV-2026-77');
  });

  it('a corrective and a follow-up filing after a late document carry it; a follow-up needs the day its reasons were found', async () => {
    await post('/v1/purchase/bills', billBody({ date_issued: '2026-10-28', date_due: '2026-11-28', vendor_doc_no: 'ACME-KH-LATE', items: [{ description: 'Storage', qty: 1, rate: 15_000, taxes: [VAT21] }] }));
    await eventually(async () => ((await ok(await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}`))).b2.length === 2 ? true : null), 15_000);
    const corrective = await filing(`${OCTOBER}&format=epo&filing_kind=O`);
    expect(schemaErrors(corrective, DPHKH1_XSD())).toEqual([]);
    expect(xmlRecords(corrective, 'VetaD')[0]).toMatchObject({ khdph_forma: 'O' });
    expect(xmlRecords(corrective, 'VetaB2').map((r) => r.c_evid_dd)).toEqual(['ACME-KH-1', 'ACME-KH-LATE']);
    await expectProblem(await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}&format=epo&filing_kind=N`), 400, 'validation_error');
    const followUp = await filing(`${OCTOBER}&format=epo&filing_kind=N&date_found=2026-11-26`);
    expect(schemaErrors(followUp, DPHKH1_XSD())).toEqual([]);
    expect(xmlRecords(followUp, 'VetaD')[0]).toMatchObject({ khdph_forma: 'N', d_zjist: '26.11.2026' });
    expect(xmlRecords(followUp, 'VetaB2')).toHaveLength(2);
    // answering the tax office's call names the call
    await expectProblem(await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}&format=epo&filing_kind=E`), 400, 'validation_error');
    const answer = await filing(`${OCTOBER}&format=epo&filing_kind=E&call_reference=${encodeURIComponent('123456/26/2001-52523-707788')}`);
    expect(schemaErrors(answer, DPHKH1_XSD())).toEqual([]);
    expect(xmlRecords(answer, 'VetaD')[0]).toMatchObject({ khdph_forma: 'E', c_jed_vyzvy: '123456/26/2001-52523-707788' });
    await expectProblem(await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}&format=epo&filing_kind=E&call_reference=${encodeURIComponent('<x/>')}`), 400, 'validation_error');
  });

  it("the VAT return (DPHDP3) and the EC Sales List (DPHSHV) validate and carry the reports' filed figures", async () => {
    const report = await ok(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}`));
    const xml = await filing(`${OCTOBER}&format=epo`, {}, 'vat-return');
    expect(schemaErrors(xml, DPHDP3_XSD())).toEqual([]);
    if (process.env.SHOW_FILING) console.log(xml);
    expect(xmlRecords(xml, 'VetaD')).toEqual([
      { dokument: 'DP3', k_uladis: 'DPH', mesic: '10', rok: '2026', d_poddp: expect.stringMatching(/^\d\d\.\d\d\.\d{4}$/), dapdph_forma: 'B', typ_platce: 'P', trans: 'A' },
    ]);
    const row = (n: string) => report.filed.rows.find((r: any) => r.row === n);
    const attrs = { ...xmlRecords(xml, 'Veta1')[0], ...xmlRecords(xml, 'Veta2')[0], ...xmlRecords(xml, 'Veta4')[0] };
    // output at 21 % and 12 %, reverse charge received, the EU service, the export, the reverse-charge sale, the deductions
    expect(attrs).toMatchObject({
      obrat23: String(row('1').base),
      dan23: String(row('1').tax),
      obrat5: String(row('2').base),
      dan5: String(row('2').tax),
      rez_pren23: '80000',
      dan_rpren23: '16800',
      p_sl23_e: '12000',
      dan_psl23_e: '2520',
      p_sl23_z: '3000',
      dan_psl23_z: '630',
      pln_sluzby: '5000',
      pln_vyvoz: '7000',
      pln_rez_pren: '50000',
      pln23: String(row('40').base),
      odp_tuz23_nar: String(row('40').tax),
      nar_zdp23: '95000',
      od_zdp23: '19950',
      odp_sum_nar: String(report.filed.deductible_tax),
    });
    expect(xmlRecords(xml, 'Veta6')).toEqual([
      { dan_zocelk: String(report.filed.output_tax), odp_zocelk: String(report.filed.deductible_tax), dano_da: String(report.filed.tax_due), dano_no: String(report.filed.excess_deduction) },
    ]);

    const euReport = await ok(await stack.api(`/v1/reporting/tax/eu-sales-list?${OCTOBER}`));
    const eu = await filing(OCTOBER, { accept: 'application/xml' }, 'eu-sales-list');
    expect(schemaErrors(eu, DPHSHV_XSD())).toEqual([]);
    if (process.env.SHOW_FILING) console.log(eu);
    expect(xmlRecords(eu, 'VetaD')[0]).toMatchObject({ dokument: 'SHV', k_uladis: 'DPH', mesic: '10', rok: '2026', shvies_forma: 'R' });
    expect(xmlRecords(eu, 'VetaR')).toEqual(
      euReport.lines.map((l: any, i: number) => ({ por_c_stran: '1', c_rad: String(i + 1), k_stat: l.country, c_vat: l.vat_no, k_pln_eu: l.code, pln_pocet: String(l.documents), pln_hodnota: String(Math.round(l.base)) })),
    );
    expect(xmlRecords(eu, 'VetaR')).toEqual([expect.objectContaining({ k_stat: 'DE', c_vat: '123456789', k_pln_eu: '3', pln_hodnota: '5000' })]);
    // filed as previewed
    expect((await file('DPHDP3')).xml).toBe(xml);
    expect((await file('DPHSHV')).xml).toBe(eu);
  });

  it('a follow-up VAT return states its difference against the one filed; every filing produced is kept with its hash', async () => {
    const before = await ok(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}`));
    // a late sale of October, then the follow-up return (dodatečné): row 66 is the tax it adds
    await invoice('2026-10-30', CONSUMER, [line(10_000)]);
    await eventually(async () => ((await ok(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}`))).entries > before.entries ? true : null), 15_000);
    const after = await ok(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}`));
    await expectProblem(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}&format=epo&filing_kind=N`), 400, 'validation_error');
    // the return's corrective follow-up (E) is named as itself when it lacks its day (issue 71)
    expect((await expectProblem(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}&format=epo&filing_kind=E`), 400, 'validation_error')).detail).toMatch(/corrective follow-up return \(E\)/);
    // a read-only key previews the follow-up (issue 71: a preview used to be kept, and the filed follow-up then compared with it)
    const reader = (await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'auditor', scopes: ['accounting:read'] } }))).key;
    const preview = await filing(`${OCTOBER}&format=epo&filing_kind=N&date_found=2026-11-26`, { authorization: `Bearer ${reader}` }, 'vat-return');
    await expectProblem(await stack.api('/v1/reporting/tax/filings', { method: 'POST', key: reader, json: { form: 'DPHDP3', date_from: '2026-10-01', date_to: '2026-10-31' } }), 403, 'insufficient_scope');
    const followUp = (await file('DPHDP3', { filing_kind: 'N', date_found: '2026-11-26' })).xml;
    expect(followUp).toBe(preview);
    expect(schemaErrors(followUp, DPHDP3_XSD())).toEqual([]);
    expect(xmlRecords(followUp, 'VetaD')[0]).toMatchObject({ dapdph_forma: 'D', d_zjist: '26.11.2026' });
    const added = after.filed.output_tax - after.filed.deductible_tax - (before.filed.output_tax - before.filed.deductible_tax);
    expect(added).toBe(2100);
    expect(xmlRecords(followUp, 'Veta6')).toEqual([{ dan_zocelk: String(after.filed.output_tax), odp_zocelk: String(after.filed.deductible_tax), dano: String(added) }]);

    // the EC Sales List: a late supply to the German customer; the follow-up cancels the line filed and states it again
    await expectProblem(await stack.api(`/v1/reporting/tax/eu-sales-list?${OCTOBER}&format=epo&filing_kind=N`), 422, 'nothing_to_correct');
    await invoice('2026-10-29', EU_CUSTOMER, [line(1_000, { tax_code: 'RC', tax_name: 'Reverse charge', tax_rate: 0, rate_type: 'services', tax_index: 0 })]);
    await eventually(async () => ((await ok(await stack.api(`/v1/reporting/tax/eu-sales-list?${OCTOBER}`))).lines[0]?.base === 6_000 ? true : null), 15_000);
    const shvFollowUp = (await file('DPHSHV', { filing_kind: 'N' })).xml;
    expect(schemaErrors(shvFollowUp, DPHSHV_XSD())).toEqual([]);
    expect(xmlRecords(shvFollowUp, 'VetaD')[0]).toMatchObject({ shvies_forma: 'N' });
    expect(xmlRecords(shvFollowUp, 'VetaR')).toEqual([
      { por_c_stran: '1', c_rad: '1', k_stat: 'DE', c_vat: '123456789', k_pln_eu: '3', k_storno: 'A' },
      { por_c_stran: '1', c_rad: '2', k_stat: 'DE', c_vat: '123456789', k_pln_eu: '3', pln_pocet: '2', pln_hodnota: '6000' },
    ]);

    const filings = await ok(await stack.api('/v1/reporting/tax/filings?form=DPHDP3'));
    // what was filed, not what was previewed
    expect(filings.entities.map((f: any) => [f.form, f.kind, f.date_from, f.tax])).toEqual([
      ['DPHDP3', 'D', '2026-10-01', after.filed.output_tax - after.filed.deductible_tax],
      ['DPHDP3', 'B', '2026-10-01', before.filed.output_tax - before.filed.deductible_tax],
    ]);
    expect(filings.entities[0].xml).toBe(followUp);
    expect(filings.entities[0].sha256).toBe(createHash('sha256').update(followUp).digest('hex'));
    const all = await ok(await stack.api('/v1/reporting/tax/filings?take=100'));
    expect(new Set(all.entities.map((f: any) => f.form))).toEqual(new Set(['DPHKH1', 'DPHDP3', 'DPHSHV']));
    // another organisation's follow-up has nothing to compare with
    const other = await secondOrganisation(stack, 'Bez přiznání s.r.o.');
    expect((await ok(await stack.api('/v1/reporting/tax/filings', { key: other.key }))).total).toBe(0);
  });

  it('files only an ended period, of a form it knows, once at a time', async () => {
    const now = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Prague' }).format(new Date());
    const monthStart = `${now.slice(0, 7)}-01`;
    const monthEnd = new Date(Date.UTC(Number(now.slice(0, 4)), Number(now.slice(5, 7)), 0)).toISOString().slice(0, 10);
    const before = (await ok(await stack.api('/v1/reporting/tax/filings'))).total;
    const notEnded = await expectProblem(await stack.api('/v1/reporting/tax/filings', { method: 'POST', json: { form: 'DPHDP3', date_from: monthStart, date_to: monthEnd } }), 422, 'period_not_ended');
    expect(notEnded.errors!.map((e) => e.path)).toEqual(['date_to']);
    await expectProblem(await stack.api('/v1/reporting/tax/filings', { method: 'POST', json: { form: 'DPHDP3', date_from: '9999-12-01', date_to: '9999-12-31' } }), 422, 'period_not_ended');
    for (const json of [{}, { form: 'DPHXX', date_from: '2026-10-01', date_to: '2026-10-31' }, { form: 'DPHDP3', date_from: '2026-10-01' }, { form: 'DPHDP3', date_from: '2026-10-01', date_to: '2026-10-31', format: 'epo' }, { form: 'DPHDP3', date_from: '2026-10-31', date_to: '2026-10-01' }]) {
      const res = await stack.api('/v1/reporting/tax/filings', { method: 'POST', json });
      expect([400, 422], JSON.stringify(json)).toContain(res.status);
    }
    // a GET of the filing, a follow-up too, keeps nothing
    await filing(`${OCTOBER}&format=epo&filing_kind=N&date_found=2026-11-26`, {}, 'vat-return');
    expect((await ok(await stack.api('/v1/reporting/tax/filings'))).total).toBe(before);
    // two follow-ups filed at once each compare with the filing before it
    const [a, b] = await Promise.all([file('DPHDP3', { filing_kind: 'N', date_found: '2026-11-27' }), file('DPHDP3', { filing_kind: 'N', date_found: '2026-11-27' })]);
    expect(new Set([a.id, b.id]).size).toBe(2);
    expect((await ok(await stack.api('/v1/reporting/tax/filings'))).total).toBe(before + 2);
  });

  it('refuses what is not a filing: not a month, another media type; another organisation files its own', async () => {
    await expectProblem(await stack.api('/v1/reporting/tax/control-statement?date_from=2026-10-01&date_to=2026-10-15&format=epo'), 422, 'filing_period_invalid');
    await expectProblem(await stack.api('/v1/reporting/tax/control-statement?date_from=2026-10-01&date_to=2026-12-31&format=epo'), 422, 'filing_period_invalid');
    expect((await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}`, { headers: { accept: 'application/pdf' } })).status).toBe(406);
    await expectProblem(await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}&format=xml`), 400);
    const other = await secondOrganisation(stack, 'Jiná s.r.o.');
    await expectProblem(await stack.api(`/v1/reporting/tax/control-statement?${OCTOBER}&format=epo`, { key: other.key }), 422, 'tax_filing_incomplete');
    await expectProblem(await stack.api(`/v1/reporting/tax/eu-sales-list?${OCTOBER}&format=epo&filing_kind=E`), 422, 'filing_kind_not_applicable');
    const reader = (await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'sales only', scopes: ['sales:read'] } }))).key;
    await expectProblem(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}&format=epo`, { key: reader }), 403, 'insufficient_scope');
    await expectProblem(await stack.api('/v1/reporting/tax/filings', { key: reader }), 403, 'insufficient_scope');
  });
});
