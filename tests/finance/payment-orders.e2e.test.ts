import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { localClock, addDays } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { schemaErrors, xmlValues } from '../support/einvoice.js';
import { startRegisterServer, type RegisterServer } from '../support/registers.js';
import { secondOrganisation } from './support.js';
import { PURCHASE_TYPE, VAT21 } from '../purchase/fixtures.js';

/*
 * Paying bills by payment order (issue 76, decision 239) through the gateway: bills chosen, one
 * order of what is left to pay on each, read as ISO 20022 pain.001.001.03 (validated against the
 * schema ISO publishes, ../shared/iso20022) and as the Czech ABO file (read back by the record
 * layout the banks publish: "Technická specifikace struktury ABO formátu", Fio banka's "Struktura
 * ABO", Equa bank's "Formát ABO"); the bills show the order; the next statement's payments clear it.
 */

const root = path.resolve(import.meta.dirname, '../..');
const PAIN_XSD = [path.resolve(root, '../shared/iso20022/pain.001.001.03.xsd'), '/work/shared/iso20022/pain.001.001.03.xsd'].find((p) => existsSync(p))!;

let stack: Stack;
let registers: RegisterServer;
const ORG = { name: 'Strojírny Vysočina s.r.o.', vat_no: 'CZ26835746', address: { city: 'Jihlava', country: 'CZ' }, bank_account: { account_number: '19-2000145399/0800' } };
const KOVAR = { business_name: 'Stroje Kovář s.r.o.', vat_no: 'CZ25596641', address: { address1: 'Průmyslová 12', city: 'Olomouc', postal_code: '77900', country: 'CZ' } };
const UNRELIABLE = { business_name: 'Nespolehlivý dodavatel s.r.o.', vat_no: 'CZ12345679', address: { city: 'Praha', country: 'CZ' } };
const today = () => localClock(new Date(), 'Europe/Prague').day;
const tomorrow = () => addDays(today(), 1);

beforeAll(async () => {
  registers = await startRegisterServer();
  stack = await startStack({ services: ['purchase', 'finance'], env: registers.env });
  ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: ORG }));
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await registers?.close();
});

const post = async (p: string, json: unknown, key?: string) => ok(await stack.api(p, { method: 'POST', json, key }));
const get = async (p: string, key?: string) => ok(await stack.api(p, { key }));
const bill = (over: Record<string, unknown> = {}, key?: string) =>
  post(
    '/v1/purchase/bills',
    {
      type: PURCHASE_TYPE,
      vendor: KOVAR,
      currency: 'CZK',
      date_issued: '2026-11-20',
      date_due: '2026-12-10',
      vendor_doc_no: 'FA-2026-118',
      payment_reference: '2026118',
      bank_account_number: '2701000002/2010',
      items: [{ description: 'Frézka', qty: 1, rate: 10000, taxes: [VAT21] }],
      ...over,
    },
    key,
  );
const order = (json: Record<string, unknown>, key?: string) => stack.api('/v1/finance/payment-orders', { method: 'POST', json: { execution_date: tomorrow(), ...json }, key });
const orderCount = async (key?: string) => (await get('/v1/finance/payment-orders', key)).total;

/** The ABO file's records, each split into its fields as the published layout defines them. */
function readAbo(file: string) {
  expect(file.endsWith('\r\n')).toBe(true);
  const lines = file.slice(0, -2).split('\r\n');
  const [uhl, accounting, group, ...rest] = lines;
  const items = rest.slice(0, -2);
  expect(rest.slice(-2)).toEqual(['3 +', '5 +']);
  const header = /^UHL1(\d{6})(.{20})(\d{10})(\d{3})(\d{3})(\d{6})(\d{6})$/.exec(uhl);
  expect(header, uhl).not.toBeNull();
  return {
    header: { date: header![1], name: header![2], client: header![3], from: header![4], to: header![5] },
    accounting: accounting.split(' '),
    group: group.split(' '),
    items: items.map((l) => {
      const m = /^(\d{6})-(\d{10}) (\d+) (\d+) (\d{4})(\d{4}) (\d+)(?: AV:(.{1,35}))?$/.exec(l);
      expect(m, l).not.toBeNull();
      return { prefix: m![1], number: m![2], hellers: m![3], vs: m![4], bank: m![5], ks: m![6], ss: m![7], message: m![8] ?? null };
    }),
  };
}

const ddmmyy = (day: string) => `${day.slice(8, 10)}${day.slice(5, 7)}${day.slice(2, 4)}`;

describe('payment orders (issue 76)', () => {
  let first: any;
  let second: any;
  let made: any;

  it('an order of two bills pays what is left on each, from the organisation account, and the bills show it', async () => {
    first = await bill();
    // a part already paid: the order pays the rest
    await post('/v1/finance/bank/transactions', { amount: -100, currency: 'CZK', date_transaction: '2026-11-25', paid_record: { type: 'purchase_bill', id: first.id } });
    await eventually(async () => (await get(`/v1/purchase/bills/${first.id}`)).amount_due === 12000, 10_000);
    const contact = await post('/v1/contacts', { business_name: 'Dřevo Šťastný a syn', address: { city: 'Třebíč', country: 'CZ' }, bank_accounts: [{ account_number: '1001001018/0300' }] });
    second = await bill({ vendor: null, contact_id: contact.id, bank_account_number: null, vendor_doc_no: 'DS-450', payment_reference: '0000450', items: [{ description: 'Prkna', qty: 1, rate: 2000, taxes: [VAT21] }] });
    expect(second).toMatchObject({ bank_account_number: '1001001018/0300', total_amount: 2420 });

    // the organisation's bank account reaches finance with its profile
    made = await eventually(async () => {
      const res = await order({ bill_ids: [first.id, second.id], constant_symbol: '308' });
      return res.status === 200 ? res.json() : null;
    }, 10_000);
    expect(made).toMatchObject({
      status: 'open',
      version: 1,
      currency: 'CZK',
      execution_date: tomorrow(),
      total_amount: 14420,
      from_account: { account_number: '19-2000145399/0800', iban: 'CZ6508000000192000145399', bic: null },
      message_id: expect.stringMatching(/^LL-\d+-PO-\d+$/),
      sent_at: null,
      completed_at: null,
      cancelled_at: null,
    });
    expect(made.items).toEqual([
      {
        bill_id: first.id,
        bill_no: first.no,
        vendor_doc_no: 'FA-2026-118',
        vendor_name: 'Stroje Kovář s.r.o.',
        amount: 12000,
        account: { account_number: '2701000002/2010', iban: 'CZ9220100000002701000002', bic: null },
        variable_symbol: '2026118',
        constant_symbol: '0308',
        specific_symbol: null,
        message: 'FA-2026-118',
        end_to_end_id: '/VS2026118/KS0308',
        risk_accepted: false,
        status: 'ordered',
        amount_paid: 0,
      },
      expect.objectContaining({ bill_id: second.id, amount: 2420, variable_symbol: '450', end_to_end_id: '/VS450/KS0308', account: { account_number: '1001001018/0300', iban: 'CZ1503000000001001001018', bic: null } }),
    ]);
    expect(await get(`/v1/finance/payment-orders/${made.id}`)).toEqual(made);
    expect(await get(`/v1/finance/payment-orders?bill_id=${second.id}`)).toMatchObject({ total: 1, entities: [made] });

    // purchase shows the order on both bills
    for (const b of [first, second]) {
      await eventually(async () => {
        const seen = await get(`/v1/purchase/bills/${b.id}`);
        return seen.payment_order_id === made.id && seen.payment_status === 'ordered';
      }, 10_000);
    }
    const ordered = await get('/v1/purchase/bills?payment_status=ordered');
    expect(ordered.entities.map((b: any) => b.id).sort()).toEqual([first.id, second.id].sort());
  });

  it('a bill already in an open order is 409 naming it, and nothing is stored', async () => {
    const before = await orderCount();
    const other = await bill({ vendor_doc_no: 'FA-2026-200', payment_reference: '2026200' });
    const problem = await expectProblem(await order({ bill_ids: [other.id, first.id] }), 409, 'bill_already_ordered');
    expect(problem.errors).toEqual([{ path: 'bill_ids[1]', code: 'bill_already_ordered', message: `${first.no} is in payment order ${made.id}` }]);
    expect(await orderCount()).toBe(before);
  });

  it('pain.001.001.03: valid against the schema, the totals, the accounts as IBANs, the symbols where Czech banks read them', async () => {
    const res = await stack.api(`/v1/finance/payment-orders/${made.id}`, { headers: { accept: 'application/xml' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = await res.text();
    expect(schemaErrors(xml, PAIN_XSD)).toEqual([]);
    expect(xmlValues(xml, 'NbOfTxs')).toEqual(['2', '2']);
    expect(xmlValues(xml, 'CtrlSum')).toEqual(['14420.00', '14420.00']);
    expect(xmlValues(xml, 'MsgId')).toEqual([made.message_id]);
    expect(xmlValues(xml, 'ReqdExctnDt')).toEqual([tomorrow()]);
    expect(xmlValues(xml, 'IBAN')).toEqual(['CZ6508000000192000145399', 'CZ9220100000002701000002', 'CZ1503000000001001001018']);
    expect(xmlValues(xml, 'InstdAmt')).toEqual(['12000.00', '2420.00']);
    expect(xml).toContain('<InstdAmt Ccy="CZK">12000.00</InstdAmt>');
    expect(xmlValues(xml, 'EndToEndId')).toEqual(['/VS2026118/KS0308', '/VS450/KS0308']);
    // names in the banks' character set: diacritics taken off
    expect(xmlValues(xml, 'Nm')).toEqual(['Strojirny Vysocina s.r.o.', 'Strojirny Vysocina s.r.o.', 'Stroje Kovar s.r.o.', 'Drevo Stastny a syn']);
    expect(xmlValues(xml, 'Ustrd')).toEqual(['FA-2026-118', 'DS-450']);
    // a CZK order is a domestic payment, not a SEPA one
    expect(xml).not.toContain('<Cd>SEPA</Cd>');
    // ?format=pain.001 is the same document; a GET changed nothing
    expect(await (await stack.api(`/v1/finance/payment-orders/${made.id}?format=pain.001`)).text()).toBe(xml);
    expect(await get(`/v1/finance/payment-orders/${made.id}`)).toEqual(made);
  });

  it('ABO: the records of the published layout, accounts and amounts in hellers, VS/KS per item', async () => {
    const res = await stack.api(`/v1/finance/payment-orders/${made.id}?format=abo`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const abo = readAbo(await res.text());
    expect(abo.header).toMatchObject({ date: ddmmyy(made.created_at.slice(0, 10)), name: 'STROJIRNY VYSOCINA S', client: '0000000000', from: '001', to: '001' });
    // accounting file: payments (1501) from the payer's bank 0800
    expect(abo.accounting).toEqual(['1', '1501', '001000', '0800']);
    // group: the payer's account, the sum in hellers, the due date
    expect(abo.group).toEqual(['2', '000019-2000145399', '1442000', ddmmyy(tomorrow())]);
    expect(abo.items).toEqual([
      { prefix: '000000', number: '2701000002', hellers: '1200000', vs: '2026118', bank: '2010', ks: '0308', ss: '0', message: 'FA-2026-118' },
      { prefix: '000000', number: '1001001018', hellers: '242000', vs: '450', bank: '0300', ks: '0308', ss: '0', message: 'DS-450' },
    ]);
  });

  it("the statement's payments clear the order: by its end-to-end id and by the variable symbol; the order completes and the bills are paid", async () => {
    const statement = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>PO-STMT-1</MsgId><CreDtTm>2026-12-02T06:00:00</CreDtTm></GrpHdr>
<Stmt><Id>PO-1</Id><ElctrncSeqNb>77</ElctrncSeqNb><CreDtTm>2026-12-02T06:00:00</CreDtTm><FrToDt><FrDtTm>2026-12-01T00:00:00</FrDtTm><ToDtTm>2026-12-01T23:59:59</ToDtTm></FrToDt>
<Acct><Id><IBAN>CZ6508000000192000145399</IBAN></Id><Ccy>CZK</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="CZK">50000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-12-01</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="CZK">35580.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-12-01</Dt></Dt></Bal>
<Ntry><Amt Ccy="CZK">12000.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-12-01</Dt></BookgDt><ValDt><Dt>2026-12-01</Dt></ValDt><AcctSvcrRef>PO-77-1</AcctSvcrRef>
<NtryDtls><TxDtls><Refs><EndToEndId>/VS2026118/KS0308</EndToEndId></Refs><RltdPties><Cdtr><Nm>Stroje Kovar s.r.o.</Nm></Cdtr><CdtrAcct><Id><IBAN>CZ9220100000002701000002</IBAN></Id></CdtrAcct></RltdPties></TxDtls></NtryDtls></Ntry>
<Ntry><Amt Ccy="CZK">2420.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-12-01</Dt></BookgDt><ValDt><Dt>2026-12-01</Dt></ValDt><AcctSvcrRef>PO-77-2</AcctSvcrRef>
<NtryDtls><TxDtls><Refs><EndToEndId>/VS450/KS0308</EndToEndId></Refs></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>`;
    const imported = await ok(await stack.api('/v1/finance/bank/statements', { method: 'POST', body: statement, headers: { 'content-type': 'application/xml' } }));
    expect(imported.statements[0].entries.map((e: any) => [e.status, e.matched_by, e.transaction.matched_document?.id])).toEqual([
      ['matched', 'payment_order', first.id],
      ['matched', 'payment_order', second.id],
    ]);
    const done = await get(`/v1/finance/payment-orders/${made.id}`);
    expect(done).toMatchObject({ status: 'completed', version: 3, sent_at: expect.any(String), completed_at: expect.any(String) });
    expect(done.items.map((i: any) => [i.status, i.amount_paid])).toEqual([
      ['paid', 12000],
      ['paid', 2420],
    ]);
    for (const b of [first, second]) {
      await eventually(async () => {
        const seen = await get(`/v1/purchase/bills/${b.id}`);
        return seen.payment_status === 'paid' && seen.amount_due === 0 && seen.payment_order_id === made.id;
      }, 10_000);
    }
    // a paid order cannot be cancelled
    await expectProblem(await stack.api(`/v1/finance/payment-orders/${made.id}/cancel`, { method: 'POST' }), 409, 'payment_order_not_open');
  });

  it('cancel while open frees the bills for another order; once sent it can no longer be cancelled', async () => {
    const b = await bill({ vendor_doc_no: 'FA-2026-300', payment_reference: '2026300' });
    const o = await ok(await order({ bill_ids: [b.id], from_account: { iban: 'CZ65 0800 0000 1920 0014 5399' } }));
    await eventually(async () => (await get(`/v1/purchase/bills/${b.id}`)).payment_status === 'ordered', 10_000);
    const cancelled = await post(`/v1/finance/payment-orders/${o.id}/cancel`, {});
    expect(cancelled).toMatchObject({ status: 'cancelled', version: 2, cancelled_at: expect.any(String), items: [expect.objectContaining({ status: 'cancelled' })] });
    // cancelling again answers the same order
    expect(await post(`/v1/finance/payment-orders/${o.id}/cancel`, {})).toEqual(cancelled);
    await eventually(async () => {
      const seen = await get(`/v1/purchase/bills/${b.id}`);
      return seen.payment_status === 'unpaid' && seen.payment_order_id === null;
    }, 10_000);
    // the bill is free again
    const again = await ok(await order({ bill_ids: [b.id] }));
    const sent = await post(`/v1/finance/payment-orders/${again.id}/sent`, {});
    expect(sent).toMatchObject({ status: 'sent', version: 2, sent_at: expect.any(String) });
    expect(await post(`/v1/finance/payment-orders/${again.id}/sent`, {})).toEqual(sent);
    await expectProblem(await stack.api(`/v1/finance/payment-orders/${again.id}/cancel`, { method: 'POST' }), 409, 'payment_order_not_open');
    expect((await get('/v1/finance/payment-orders?status=cancelled')).entities.map((x: any) => x.id)).toEqual([o.id]);
    // a manual payment of the bill clears the sent order too
    await post('/v1/finance/bank/transactions', { amount: -12100, currency: 'CZK', date_transaction: '2026-12-01', paid_record: { type: 'purchase_bill', id: b.id } });
    expect(await get(`/v1/finance/payment-orders/${again.id}`)).toMatchObject({ status: 'completed', items: [expect.objectContaining({ status: 'paid', amount_paid: 12100 })] });
  });

  it("a EUR order is a SEPA credit transfer (valid, service level SEPA, charges SLEV); as ABO it is 422", async () => {
    const eur = await bill({ currency: 'EUR', vendor: { business_name: 'Müller & Söhne GmbH', vat_no: 'DE811569869', address: { city: 'Köln', country: 'DE' } }, bank_account_number: 'DE89 3704 0044 0532 0130 00', payment_reference: 'RE-2026-77', vendor_doc_no: 'RE-2026-77', tax_fx_rate: 25, items: [{ description: 'Ersatzteile', qty: 2, rate: 410.25, taxes: [] }] });
    const o = await ok(await order({ bill_ids: [eur.id], from_account: { iban: 'CZ6508000000192000145399', bic: 'GIBACZPX' } }));
    expect(o).toMatchObject({ currency: 'EUR', total_amount: 820.5, items: [expect.objectContaining({ variable_symbol: null, end_to_end_id: `LL-${o.id}-1`, account: { account_number: null, iban: 'DE89370400440532013000', bic: null } })] });
    const xml = await (await stack.api(`/v1/finance/payment-orders/${o.id}`, { headers: { accept: 'application/xml' } })).text();
    expect(schemaErrors(xml, PAIN_XSD)).toEqual([]);
    expect(xmlValues(xml, 'Cd')).toEqual(['SEPA']);
    expect(xmlValues(xml, 'ChrgBr')).toEqual(['SLEV']);
    expect(xmlValues(xml, 'BIC')).toEqual(['GIBACZPX']);
    expect(xmlValues(xml, 'Nm')).toContain('Muller Sohne GmbH');
    expect(xml).toContain('<InstdAmt Ccy="EUR">820.50</InstdAmt>');
    const problem = await expectProblem(await stack.api(`/v1/finance/payment-orders/${o.id}?format=abo`), 422, 'abo_not_possible');
    expect(problem.detail).toMatch(/CZK/);
    await post(`/v1/finance/payment-orders/${o.id}/cancel`, {});
  });

  it("refusals name the bill and store nothing: no vendor account, the vendor's risk unless accepted, not a bill, mixed currencies, dates, bad bodies", async () => {
    const before = await orderCount();
    const noAccount = await bill({ bank_account_number: null, vendor_doc_no: 'FA-NA', payment_reference: '999' });
    const plain = await bill({ vendor_doc_no: 'FA-OK', payment_reference: '998' });
    let problem = await expectProblem(await order({ bill_ids: [plain.id, noAccount.id] }), 422, 'vendor_account_missing');
    expect(problem.errors).toEqual([{ path: 'bill_ids[1]', code: 'vendor_account_missing', message: expect.stringContaining(noAccount.no) }]);

    // the register says the vendor is unreliable: the bill records the risk, the order asks to accept it
    const risky = await bill({ vendor: UNRELIABLE, vendor_doc_no: 'NS-1', payment_reference: '997' });
    expect(risky.vendor_check).toMatchObject({ status: 'risk', unreliable_payer: true });
    problem = await expectProblem(await order({ bill_ids: [plain.id, risky.id] }), 422, 'vendor_risk');
    expect(problem.errors).toEqual([{ path: 'bill_ids[1]', code: 'vendor_risk', message: expect.stringMatching(/unreliable/) }]);
    expect(problem.detail).toMatch(/§109/);

    const credit = await post('/v1/purchase/vendor-credits', { type: PURCHASE_TYPE, vendor: KOVAR, currency: 'CZK', date_issued: '2026-11-21', items: [{ description: 'Dobropis', qty: 1, rate: 100, taxes: [VAT21] }] });
    await expectProblem(await order({ bill_ids: [credit.id] }), 422, 'bill_not_payable');
    const eur = await bill({ currency: 'EUR', tax_fx_rate: 25, bank_account_number: 'DE89370400440532013000', items: [{ description: 'x', qty: 1, rate: 10, taxes: [] }] });
    problem = await expectProblem(await order({ bill_ids: [plain.id, eur.id] }), 422, 'payment_order_currency_mixed');
    expect(problem.errors?.[0].path).toBe('bill_ids[1]');
    problem = await expectProblem(await order({ bill_ids: [plain.id, 987654321] }), 422, 'bill_not_found');
    expect(problem.errors?.[0].path).toBe('bill_ids[1]');
    await expectProblem(await order({ bill_ids: [plain.id], execution_date: '2020-01-01' }), 422, 'execution_date_out_of_range');
    await expectProblem(await order({ bill_ids: [plain.id], execution_date: addDays(today(), 400) }), 422, 'execution_date_out_of_range');
    await expectProblem(await order({ bill_ids: [plain.id], from_account: { account_number: '124/0100' } }), 422, 'from_account_missing');
    for (const body of [{ bill_ids: [] }, { bill_ids: [plain.id, plain.id] }, { bill_ids: Array.from({ length: 501 }, (_, i) => i + 1) }, { bill_ids: ['1'] }, { bill_ids: [plain.id], constant_symbol: '12345' }, { bill_ids: [plain.id], execution_date: 'tomorrow' }, { bill_ids: [plain.id], accept_risk: 'yes' }]) {
      await expectProblem(await order(body), 400);
    }
    expect(await orderCount()).toBe(before);

    // accepted: the order is made and says which bill was paid despite the risk
    const accepted = await ok(await order({ bill_ids: [plain.id, risky.id], accept_risk: true }));
    expect(accepted.items.map((i: any) => [i.bill_id, i.risk_accepted])).toEqual([
      [plain.id, false],
      [risky.id, true],
    ]);
    await post(`/v1/finance/payment-orders/${accepted.id}/cancel`, {});
  });

  it("another organisation sees none of it: its order ids are 404, its bill ids not found; a read-only key cannot order", async () => {
    const other = await secondOrganisation(stack, 'Jiná firma s.r.o.');
    await expectProblem(await stack.api(`/v1/finance/payment-orders/${made.id}`, { key: other.key }), 404, 'payment_order_not_found');
    await expectProblem(await stack.api(`/v1/finance/payment-orders/${made.id}/cancel`, { method: 'POST', key: other.key }), 404, 'payment_order_not_found');
    expect((await get('/v1/finance/payment-orders', other.key)).total).toBe(0);
    const theirs = await bill({ payment_reference: '555' }, other.key);
    const problem = await expectProblem(await order({ bill_ids: [theirs.id] }), 422, 'bill_not_found');
    expect(problem.errors?.[0].path).toBe('bill_ids[0]');
    const readOnly = await post('/v1/settings/security/api-keys', { name: 'reader', scopes: ['finance:read', 'purchase:read'] });
    await expectProblem(await order({ bill_ids: [first.id] }, readOnly.key), 403);
    expect((await get('/v1/finance/payment-orders', readOnly.key)).total).toBeGreaterThan(0);
    // an Accept the order cannot be written in is 406
    await expectProblem(await stack.api(`/v1/finance/payment-orders/${made.id}`, { headers: { accept: 'application/pdf' } }), 406);
  });
});
