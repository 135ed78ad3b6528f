import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';
import { secondOrganisation } from './support.js';
import { billBody } from '../purchase/fixtures.js';
import { camt053File, gpcFile, mt940File, type FixtureStatement } from '../../apps/finance/src/domain/statements/statement-files.fixtures.js';

/*
 * Bank statements (issue 17) through the gateway: a camt.053 file with three entries (one paying
 * an invoice by its variable symbol, a fee, one unknown), a GPC file in windows-1250 and an MT940
 * file, each with the right matches, balances, ledger rows and invoice payment statuses; a file
 * imported again is 409, a tampered closing balance 422 with nothing stored; an unmatched entry is
 * matched later, its suspense posting reversed.
 */

let stack: Stack;
const VAT21 = { tax_code: 'S', tax_rate: 21 };
const CUSTOMER = { id: 7001, business_name: 'Odběratel s.r.o.', vat_no: 'CZ87654321', address: { country: 'CZ' } };
const OTHER_CUSTOMER = { id: 7002, business_name: 'Jiný odběratel s.r.o.', address: { country: 'CZ' } };
const ACCOUNT = 'CZ6508000000192000145399';

interface Row {
  debit: number;
  credit: number;
  gl_account: { number: string };
}
interface Txn {
  id: number;
  type: string;
  source: { type: string; id: number; version: number };
  rows: Row[];
}

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (path: string, json: unknown) => {
  const res = await stack.api(path, { method: 'POST', json });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};
const invoice = (amount: number, customer: Record<string, unknown> = CUSTOMER, extra: Record<string, unknown> = {}) =>
  post('/v1/sales/invoices', { customer, currency: 'CZK', date_issued: '2026-11-02', date_due: '2026-11-30', items: [{ title: 'Služba', qty: 1, rate: amount, taxes: [VAT21] }], ...extra });
const vsOf = (no: string) => no.replace(/\D/g, '').slice(-10);
const importFile = (body: string | Uint8Array, contentType: string, query = '', key?: string) =>
  stack.api(`/v1/finance/bank/statements${query}`, { method: 'POST', body, key, headers: { 'content-type': contentType } });
const summary = (t: Txn) => t.rows.map((r) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit.toFixed(2)}`)).sort();
/** The ledger's entries for one bank transaction (every version and reversal), by the list's source filter. */
async function ledgerOf(transactionId: number): Promise<Txn[]> {
  const page = await (await stack.api(`/v1/accounting/transactions?source_type=bank_transaction&source_id=${transactionId}&take=1000`)).json();
  const entries = page.entities as Txn[];
  // the filter answers that transaction's entries and nothing else
  expect(entries.every((t) => t.source?.type === 'bank_transaction' && t.source.id === transactionId)).toBe(true);
  expect(page.total).toBe(entries.length);
  return entries;
}
const invoiceStatus = async (id: number) => (await (await stack.api(`/v1/sales/invoices/${id}`)).json()).payment_status;

/** windows-1250 bytes (the Czech letters the fixtures use). */
function cp1250(s: string): Uint8Array {
  const table: Record<string, number> = { 'á': 0xe1, 'č': 0xe8, 'é': 0xe9, 'ě': 0xec, 'í': 0xed, 'ř': 0xf8, 'š': 0x9a, 'ť': 0x9d, 'ú': 0xfa, 'ů': 0xf9, 'ý': 0xfd, 'ž': 0x9e, 'Š': 0x8a, 'Ž': 0x8e, 'Č': 0xc8 };
  return Uint8Array.from([...s].map((c) => table[c] ?? c.charCodeAt(0)));
}

let unmatchedId: number;

describe('importing bank statements', () => {
  it('camt.053: the invoice paid by its variable symbol, the fee to 568, the unknown entry to 395; the ledger and the invoice follow', async () => {
    const inv = await invoice(1000); // 1210.00 with VAT
    const statement: FixtureStatement = {
      account: ACCOUNT,
      number: '101',
      opening: '1000.00',
      closing: '2697.50',
      from: '2026-11-19',
      to: '2026-11-20',
      movements: [
        { amount: '1210.00', vs: vsOf(inv.no), name: 'Odběratel s.r.o.', counterAccount: 'CZ7908000000002000145399', message: `Faktura ${inv.no}` },
        { amount: '-12.50', fee: true, message: 'Poplatek za vedení účtu' },
        { amount: '500.00', name: 'Neznámý plátce', message: 'Záloha' },
      ],
    };
    const res = await importFile(camt053File([statement]), 'application/xml');
    expect(res.status, await res.clone().text()).toBe(200);
    const { statements } = await res.json();
    expect(statements).toHaveLength(1);
    const [s] = statements;
    expect(s).toMatchObject({ format: 'camt053', account: ACCOUNT, statement_no: '101', currency: 'CZK', opening_balance: 1000, closing_balance: 2697.5, date_from: '2026-11-19', date_to: '2026-11-20' });
    expect(s.entries.map((e: any) => [e.order, e.status, e.matched_by, e.amount])).toEqual([
      [1, 'matched', 'variable_symbol', 1210],
      [2, 'fee', null, -12.5],
      [3, 'unmatched', null, 500],
    ]);
    const [paid, fee, unknown] = s.entries.map((e: any) => e.transaction);
    expect(paid).toMatchObject({ match_status: 'matched', matched_document: { type: 'sales_invoice', id: inv.id, no: inv.no, amount: 1210 }, payment_reference: vsOf(inv.no), statement_id: s.id, order: 1, bank_reference: 'REF-101-1' });
    expect(fee).toMatchObject({ match_status: 'none', gl_account: { number: '568' }, amount: -12.5 });
    expect(unknown).toMatchObject({ match_status: 'unmatched', amount: 500, partner_name: 'Neznámý plátce' });
    unmatchedId = unknown.id;

    await eventually(async () => (await invoiceStatus(inv.id)) === 'paid', 15_000);
    expect(summary((await eventually(async () => (await ledgerOf(paid.id))[0], 15_000))!)).toEqual(['Cr 311 1210.00', 'Dr 221 1210.00']);
    expect(summary((await eventually(async () => (await ledgerOf(fee.id))[0], 15_000))!)).toEqual(['Cr 221 12.50', 'Dr 568 12.50']);
    expect(summary((await eventually(async () => (await ledgerOf(unknown.id))[0], 15_000))!)).toEqual(['Cr 395 500.00', 'Dr 221 500.00']);

    // the statement reads back as answered; the list has it; the transactions list filters by it
    expect(await (await stack.api(`/v1/finance/bank/statements/${s.id}`)).json()).toEqual(s);
    const list = await (await stack.api('/v1/finance/bank/statements')).json();
    expect(list.entities.map((x: any) => x.statement_no)).toContain('101');
    const ofStatement = await (await stack.api(`/v1/finance/bank/transactions?statement_id=${s.id}`)).json();
    expect(ofStatement.entities.map((t: any) => t.order)).toEqual([1, 2, 3]);

    // the same file again: 409, nothing recorded twice
    const before = (await (await stack.api('/v1/finance/bank/transactions?take=0')).json()).total;
    await expectProblem(await importFile(camt053File([statement]), 'application/xml'), 409, 'statement_already_imported');
    expect((await (await stack.api('/v1/finance/bank/transactions?take=0')).json()).total).toBe(before);
  });

  it('a statement whose balances do not reconcile is 422 and nothing of the file is stored', async () => {
    const inv = await invoice(100);
    const good: FixtureStatement = { account: ACCOUNT, number: '102', opening: '2697.50', closing: '2818.50', from: '2026-11-20', to: '2026-11-21', movements: [{ amount: '121.00', vs: vsOf(inv.no) }] };
    const tampered = { ...good, number: '103', closing: '2918.50' };
    const transactions = (await (await stack.api('/v1/finance/bank/transactions?take=0')).json()).total;
    const statements = (await (await stack.api('/v1/finance/bank/statements?take=0')).json()).total;
    // the good statement first in the file: the bad one refuses the whole file
    const problem = await expectProblem(await importFile(camt053File([good, tampered]), 'application/xml'), 422, 'statement_does_not_balance');
    expect(problem.errors).toEqual([{ path: 'statement 103', message: 'opening + Σ entries − closing = -100', code: 'statement_does_not_balance' }]);
    expect((await (await stack.api('/v1/finance/bank/transactions?take=0')).json()).total).toBe(transactions);
    expect((await (await stack.api('/v1/finance/bank/statements?take=0')).json()).total).toBe(statements);
    expect(await invoiceStatus(inv.id)).toBe('unpaid');
  });

  it('GPC in windows-1250: paid in part by the variable symbol, another invoice by its amount alone', async () => {
    const partly = await invoice(1000); // 1210.00 due
    const byAmount = await invoice(333, OTHER_CUSTOMER); // 402.93, the only open invoice of that amount
    const statement: FixtureStatement = {
      account: '19-2000145399',
      number: '7',
      opening: '0',
      closing: '1002.93',
      from: '2026-11-21',
      to: '2026-11-22',
      movements: [
        { amount: '600.00', vs: vsOf(partly.no), ks: '0308', counterAccount: '2000145399/0800', name: 'Odběratel s.r.o.', reference: 'GPC-1' },
        { amount: '402.93', name: 'Jiný odběratel', counterAccount: '123-4567890/0100', reference: 'GPC-2' },
      ],
    };
    const res = await importFile(cp1250(gpcFile(statement)), 'text/plain', '?format=gpc');
    expect(res.status, await res.clone().text()).toBe(200);
    const [s] = (await res.json()).statements;
    expect(s).toMatchObject({ format: 'gpc', account: '19-2000145399', statement_no: '7', currency: 'CZK', closing_balance: 1002.93 });
    expect(s.entries.map((e: any) => [e.status, e.matched_by, e.transaction.matched_document?.id])).toEqual([
      ['matched', 'variable_symbol', partly.id],
      ['matched', 'amount', byAmount.id],
    ]);
    expect(s.entries[0].transaction.partner_name).toBe('Odběratel s.r.o.');
    await eventually(async () => (await invoiceStatus(partly.id)) === 'partially_paid' && (await invoiceStatus(byAmount.id)) === 'paid', 15_000);
    const due = (await (await stack.api(`/v1/sales/invoices/${partly.id}`)).json()).amount_due;
    expect(due).toBe(610);
    expect(summary((await eventually(async () => (await ledgerOf(s.entries[0].transaction.id))[0], 15_000))!)).toEqual(['Cr 311 600.00', 'Dr 221 600.00']);
    expect(summary((await eventually(async () => (await ledgerOf(s.entries[1].transaction.id))[0], 15_000))!)).toEqual(['Cr 311 402.93', 'Dr 221 402.93']);
  });

  it('MT940 (recognised by itself): the payment reference matches, an entry already recorded is a duplicate, a charge goes to 568', async () => {
    const inv = await invoice(50, CUSTOMER, { payment_reference: 'OBJ-2026-77' }); // 60.50
    const first: FixtureStatement = {
      account: 'CZ5508000000001234567899',
      number: '40',
      opening: '100.00',
      closing: '155.50',
      from: '2026-11-22',
      to: '2026-11-23',
      movements: [
        { amount: '60.50', message: 'Platba OBJ-2026-77', reference: 'MT-1' },
        { amount: '-5.00', fee: true, reference: 'MT-2', message: 'Poplatek' },
        { amount: '0.00', reference: 'MT-0', message: 'Zrušený příkaz' },
      ],
    };
    // MT940 carries the reference in the :61: customer reference field
    const file = mt940File([first]).replace(':61:2611231123C60,50NTRFNONREF//MT-1', ':61:2611231123C60,50NTRFOBJ-2026-77//MT-1');
    const res = await importFile(file, 'application/octet-stream');
    expect(res.status, await res.clone().text()).toBe(200);
    const [s] = (await res.json()).statements;
    expect(s.format).toBe('mt940');
    expect(s.entries.map((e: any) => [e.status, e.matched_by])).toEqual([
      ['matched', 'payment_reference'],
      ['fee', null],
      ['skipped', null],
    ]);
    expect(s.entries[2].transaction).toBeNull();
    await eventually(async () => (await invoiceStatus(inv.id)) === 'paid', 15_000);
    expect(summary((await eventually(async () => (await ledgerOf(s.entries[0].transaction.id))[0], 15_000))!)).toEqual(['Cr 311 60.50', 'Dr 221 60.50']);
    expect(summary((await eventually(async () => (await ledgerOf(s.entries[1].transaction.id))[0], 15_000))!)).toEqual(['Cr 221 5.00', 'Dr 568 5.00']);

    // the next statement repeats the charge (same bank reference, amount and booking day): reported, not recorded again
    const second: FixtureStatement = { ...first, number: '41', opening: '155.50', closing: '150.50', from: '2026-11-23', to: '2026-11-24', movements: [{ amount: '-5.00', fee: true, reference: 'MT-2', date: '2026-11-23' }] };
    const again = await importFile(mt940File([second]), 'text/plain');
    expect(again.status, await again.clone().text()).toBe(200);
    const [s2] = (await again.json()).statements;
    expect(s2.entries.map((e: any) => [e.status, e.transaction.id])).toEqual([['duplicate', s.entries[1].transaction.id]]);
    expect((await (await stack.api(`/v1/finance/bank/transactions?statement_id=${s2.id}`)).json()).total).toBe(0);
  });

  it('money out pays the vendor bill its variable symbol names, or the one bill of that amount to that account', async () => {
    const byVs = await post('/v1/purchase/bills', billBody({ vendor_doc_no: 'V-1', payment_reference: '20261234', date_issued: '2026-11-03', date_due: '2026-11-17' })); // 298.00
    const byAccount = await post('/v1/purchase/bills', billBody({ vendor_doc_no: 'V-2', bank_account_number: '2000145399/0800', date_issued: '2026-11-03', items: [{ description: 'Toner', qty: 1, rate: 1000, taxes: [{ tax_code: 'S', tax_rate: 21 }] }] })); // 1210.00
    const statement: FixtureStatement = {
      account: '19-2000145399',
      number: '8',
      opening: '1002.93',
      closing: '-505.07',
      from: '2026-11-22',
      to: '2026-11-23',
      movements: [
        { amount: `-${byVs.total_amount.toFixed(2)}`, vs: '20261234', counterAccount: '123-4567890/0100', name: 'ACME', reference: 'GPC-3' },
        { amount: '-1210.00', counterAccount: '2000145399/0800', name: 'ACME', reference: 'GPC-4' },
      ],
    };
    const res = await importFile(cp1250(gpcFile(statement)), 'text/plain');
    expect(res.status, await res.clone().text()).toBe(200);
    const [s] = (await res.json()).statements;
    expect(s.entries.map((e: any) => [e.status, e.matched_by, e.transaction.matched_document?.type, e.transaction.matched_document?.id])).toEqual([
      ['matched', 'variable_symbol', 'purchase_bill', byVs.id],
      ['matched', 'amount', 'purchase_bill', byAccount.id],
    ]);
    const billStatus = async (id: number) => (await (await stack.api('/v1/purchase/bills?take=100')).json()).entities.find((b: any) => b.id === id)?.payment_status;
    await eventually(async () => (await billStatus(byVs.id)) === 'paid' && (await billStatus(byAccount.id)) === 'paid', 15_000);
    expect(summary((await eventually(async () => (await ledgerOf(s.entries[1].transaction.id))[0], 15_000))!)).toEqual(['Cr 221 1210.00', 'Dr 321 1210.00']);
  });

  it('an unmatched transaction is matched later: the suspense posting is reversed, the invoice paid; once only', async () => {
    const inv = await invoice(500, CUSTOMER, { taxes_included: true }); // 500.00 due
    expect(inv.total_amount).toBe(500);
    const unmatched = await (await stack.api('/v1/finance/bank/transactions?match_status=unmatched&take=100')).json();
    expect(unmatched.entities.map((t: any) => t.id)).toContain(unmatchedId);
    expect(unmatched.entities.every((t: any) => t.match_status === 'unmatched')).toBe(true);

    const res = await stack.api(`/v1/finance/bank/transactions/${unmatchedId}/match`, { method: 'POST', json: { document: { type: 'sales_invoice', id: inv.id } } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ id: unmatchedId, match_status: 'matched', version: 2, matched_document: { type: 'sales_invoice', id: inv.id, amount: 500 } });
    await eventually(async () => (await invoiceStatus(inv.id)) === 'paid', 15_000);
    const entries = await eventually(async () => {
      const es = await ledgerOf(unmatchedId);
      return es.length === 3 ? es : undefined;
    }, 15_000);
    const byKind = entries!.map((t) => [t.type, t.source.version, summary(t)]);
    expect(byKind).toEqual(
      expect.arrayContaining([
        ['bank_transaction', 1, ['Cr 395 500.00', 'Dr 221 500.00']],
        ['reversal', 1, ['Cr 221 500.00', 'Dr 395 500.00']],
        ['bank_transaction', 2, ['Cr 311 500.00', 'Dr 221 500.00']],
      ]),
    );
    expect((await (await stack.api('/v1/finance/bank/transactions?match_status=unmatched&take=100')).json()).entities.map((t: any) => t.id)).not.toContain(unmatchedId);
    // the statement shows it matched now
    const statement = (await (await stack.api('/v1/finance/bank/statements?take=100')).json()).entities.find((x: any) => x.statement_no === '101');
    const read = await (await stack.api(`/v1/finance/bank/statements/${statement.id}`)).json();
    expect(read.entries[2]).toMatchObject({ status: 'matched', matched_by: 'manual' });

    await expectProblem(await stack.api(`/v1/finance/bank/transactions/${unmatchedId}/match`, { method: 'POST', json: { document: { type: 'sales_invoice', id: inv.id } } }), 409, 'bank_transaction_already_matched');
    await expectProblem(await stack.api('/v1/finance/bank/transactions/99999999/match', { method: 'POST', json: { document: { type: 'sales_invoice', id: inv.id } } }), 404, 'bank_transaction_not_found');
  });

  it('a payment naming a document the organisation does not have waits in 395 like an unmatched entry, until it is matched', async () => {
    const inv = await invoice(100); // 121.00
    const recorded = await post('/v1/finance/bank/transactions', {
      account_number: ACCOUNT,
      currency: 'CZK',
      date_transaction: '2026-11-21',
      amount: 121,
      bank_reference: 'typo-in-the-invoice-id',
      paid_record: { type: 'sales_invoice', id: 987_654 },
    });
    expect(recorded).toMatchObject({ match_status: 'unmatched', matched_document: null });
    const suspense = await eventually(async () => {
      const es = await ledgerOf(recorded.id);
      return es.length === 1 ? es : undefined;
    }, 15_000);
    // nothing was paid, so nothing is taken off the receivables: 311 still equals the open invoices
    expect(summary(suspense![0]!)).toEqual(['Cr 395 121.00', 'Dr 221 121.00']);
    expect(suspense![0]!.rows.every((r: any) => r.paid_record === null)).toBe(true);
    await post(`/v1/finance/bank/transactions/${recorded.id}/match`, { document: { type: 'sales_invoice', id: inv.id } });
    const entries = await eventually(async () => {
      const es = await ledgerOf(recorded.id);
      return es.length === 3 ? es : undefined;
    }, 15_000);
    expect(entries!.map((t) => [t.type, t.source.version, summary(t)])).toEqual(
      expect.arrayContaining([
        ['bank_transaction', 1, ['Cr 395 121.00', 'Dr 221 121.00']],
        ['reversal', 1, ['Cr 221 121.00', 'Dr 395 121.00']],
        ['bank_transaction', 2, ['Cr 311 121.00', 'Dr 221 121.00']],
      ]),
    );
    await eventually(async () => (await invoiceStatus(inv.id)) === 'paid', 15_000);
  });

  it('a wrong match is taken back and the money matched again: the document unpaid, 311 reversed to 395, the statement told', async () => {
    const statement = (await (await stack.api('/v1/finance/bank/statements?take=100')).json()).entities.find((x: any) => x.statement_no === '101');
    const entryOf = async () => (await (await stack.api(`/v1/finance/bank/statements/${statement.id}`)).json()).entries[0];
    const entry = await entryOf();
    expect(entry).toMatchObject({ status: 'matched', matched_by: 'variable_symbol' });
    const paid = entry.transaction;
    const wrong = paid.matched_document;
    await eventually(async () => (await invoiceStatus(wrong.id)) === 'paid', 15_000);

    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const res = await stack.api(`/v1/finance/bank/transactions/${paid.id}/unmatch`, { method: 'POST' });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ id: paid.id, match_status: 'unmatched', matched_document: null, paid_record: null, version: 2, amount: 1210 });
    await eventually(async () => (await invoiceStatus(wrong.id)) === 'unpaid', 15_000);
    expect(await (await stack.api(`/v1/sales/invoices/${wrong.id}`)).json()).toMatchObject({ amount_paid: 0, amount_due: 1210 });
    expect(await entryOf()).toMatchObject({ status: 'unmatched', matched_by: null });
    // a sync since before it reads the transaction again, and only what changed
    const changed = await (await stack.api(`/v1/finance/bank/transactions?updated_since=${encodeURIComponent(since)}&take=1000`)).json();
    expect(changed.entities.map((t: any) => t.id)).toEqual([paid.id]);
    expect((await (await stack.api('/v1/finance/bank/transactions?match_status=unmatched&take=100')).json()).entities.map((t: any) => t.id)).toContain(paid.id);
    // nothing to take back twice, nor from a fee booked to its own account
    await expectProblem(await stack.api(`/v1/finance/bank/transactions/${paid.id}/unmatch`, { method: 'POST' }), 409, 'bank_transaction_not_matched');
    const fee = (await (await stack.api('/v1/finance/bank/transactions?match_status=none&take=1')).json()).entities[0];
    await expectProblem(await stack.api(`/v1/finance/bank/transactions/${fee.id}/unmatch`, { method: 'POST' }), 409, 'bank_transaction_not_matched');
    await expectProblem(await stack.api('/v1/finance/bank/transactions/99999999/unmatch', { method: 'POST' }), 404, 'bank_transaction_not_found');
    const other = await secondOrganisation(stack, 'Unmatching elsewhere');
    await expectProblem(await stack.api(`/v1/finance/bank/transactions/${paid.id}/unmatch`, { method: 'POST', key: other.key }), 404, 'bank_transaction_not_found');

    // the right invoice
    const right = await invoice(1000);
    await post(`/v1/finance/bank/transactions/${paid.id}/match`, { document: { type: 'sales_invoice', id: right.id } });
    await eventually(async () => (await invoiceStatus(right.id)) === 'paid', 15_000);
    expect(await invoiceStatus(wrong.id)).toBe('unpaid');
    expect(await entryOf()).toMatchObject({ status: 'matched', matched_by: 'manual', transaction: { version: 3, matched_document: { id: right.id } } });
    const entries = await eventually(async () => {
      const es = await ledgerOf(paid.id);
      return es.length === 5 ? es : undefined;
    }, 15_000);
    expect(entries!.map((t) => [t.type, t.source.version, summary(t)])).toEqual(
      expect.arrayContaining([
        ['bank_transaction', 1, ['Cr 311 1210.00', 'Dr 221 1210.00']],
        ['reversal', 1, ['Cr 221 1210.00', 'Dr 311 1210.00']],
        ['bank_transaction', 2, ['Cr 395 1210.00', 'Dr 221 1210.00']],
        ['reversal', 2, ['Cr 221 1210.00', 'Dr 395 1210.00']],
        ['bank_transaction', 3, ['Cr 311 1210.00', 'Dr 221 1210.00']],
      ]),
    );
    // the ledger's other filters: every bank transaction's entries, and a source id alone is refused
    const banks = await (await stack.api('/v1/accounting/transactions?source_type=bank_transaction&take=1000')).json();
    expect(banks.entities.length).toBeGreaterThanOrEqual(5);
    expect(banks.entities.every((t: any) => t.source.type === 'bank_transaction')).toBe(true);
    const all = await (await stack.api('/v1/accounting/transactions?take=0')).json();
    expect(all.total).toBeGreaterThan(banks.total);
    await expectProblem(await stack.api(`/v1/accounting/transactions?source_id=${paid.id}`), 400, 'validation_error');
    await expectProblem(await stack.api('/v1/accounting/transactions?source_type=cash_desk'), 400, 'validation_error');
    // taken back once: one compensation reached sales (the wrong invoice is not "paid back" twice)
    expect(await (await stack.api(`/v1/sales/invoices/${wrong.id}`)).json()).toMatchObject({ amount_paid: 0, payment_status: 'unpaid' });
  });

  it('matching to a document of another organisation is 422, and another organisation sees none of the statements', async () => {
    const fee = (await (await stack.api('/v1/finance/bank/transactions?match_status=none&take=1')).json()).entities[0];
    expect(fee.gl_account.number).toBe('568');
    await expectProblem(await stack.api(`/v1/finance/bank/transactions/${fee.id}/match`, { method: 'POST', json: { document: { type: 'sales_invoice', id: 1 } } }), 409, 'bank_transaction_not_in_suspense');
    const loose = await post('/v1/finance/bank/transactions', { amount: 10, currency: 'CZK', date_transaction: '2026-11-20', account_number: ACCOUNT });
    const other = await secondOrganisation(stack, 'Cizí s.r.o.');
    const theirs = await (await stack.api('/v1/sales/invoices', { method: 'POST', key: other.key, json: { customer: CUSTOMER, currency: 'CZK', date_issued: '2026-11-02', items: [{ title: 'X', qty: 1, rate: 10, taxes: [VAT21] }] } })).json();
    await expectProblem(await stack.api(`/v1/finance/bank/transactions/${loose.id}/match`, { method: 'POST', json: { document: { type: 'sales_invoice', id: theirs.id } } }), 422, 'document_not_payable');
    const mine = (await (await stack.api('/v1/finance/bank/statements?take=1')).json()).entities[0];
    await expectProblem(await stack.api(`/v1/finance/bank/statements/${mine.id}`, { key: other.key }), 404, 'bank_statement_not_found');
    expect((await (await stack.api('/v1/finance/bank/statements', { key: other.key })).json()).total).toBe(0);
    await expectProblem(await stack.api(`/v1/finance/bank/transactions/${unmatchedId}/match`, { method: 'POST', key: other.key, json: { document: { type: 'sales_invoice', id: theirs.id } } }), 404, 'bank_transaction_not_found');
  });

  it('hostile and broken files are a clear 400 (or 413, 415) and store nothing', async () => {
    const before = (await (await stack.api('/v1/finance/bank/statements?take=0')).json()).total;
    const camt = camt053File([{ account: ACCOUNT, number: '900', opening: '0', closing: '1', from: '2026-11-01', to: '2026-11-02', movements: [{ amount: '1.00' }] }]);
    const cases: Array<[string | Uint8Array, string, string, string]> = [
      [camt.replace('<Amt Ccy="CZK">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>', '<Amt Ccy="CZK">1,00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>'), 'application/xml', '', 'Stmt[1]/Ntry[1]/Amt'],
      ['<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">&e;</Document>', 'application/xml', '', 'body'],
      ['<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>', 'application/xml', '', 'body:1:'],
      ['date;amount\n2026-11-20;10\n', 'text/plain', '', 'body'],
      [':20:1\r\n:25:X\r\n:60F:C261119CZK1,00\r\n:61:261120C1,00NTRFNONREF\r\n', 'text/plain', '?format=mt940', 'statement 1'],
      ['074000000000000', 'text/plain', '?format=gpc', 'line 1'],
      [new Uint8Array([0x3a, 0x32, 0x30, 0x3a, 0x00]), 'application/octet-stream', '?format=mt940', 'line 1'],
    ];
    for (const [body, type, query, path] of cases) {
      const problem = await expectProblem(await importFile(body, type, query), 400);
      expect(problem.errors?.[0]?.path ?? '', `${type} ${query}: ${problem.detail}`).toContain(path);
    }
    await expectProblem(await importFile('', 'text/plain'), 400);
    await expectProblem(await importFile(camt, 'application/xml', '?format=csv'), 400);
    await expectProblem(await stack.api('/v1/finance/bank/statements', { method: 'POST', json: { file: camt } }), 400);
    await expectProblem(await importFile(`${':86:'.padEnd(2_000_000, 'x')}`, 'text/plain'), 413);
    // more entries than one request records
    const many = Array.from({ length: 5001 }, (_, i) => ({ amount: '0.01', reference: `M${i}` }));
    await expectProblem(await importFile(gpcFile({ account: '9-9', number: '1', opening: '0', closing: '50.01', from: '2026-11-01', to: '2026-11-02', movements: many }), 'text/plain'), 422, 'statement_too_long');
    expect((await (await stack.api('/v1/finance/bank/statements?take=0')).json()).total).toBe(before);
    // the other operations: wrong shapes, ids and ranges are 400 too
    for (const json of [{ document: { type: 'bogus', id: 1 } }, { document: null }, { document: { type: 'sales_invoice', id: 1e300 } }, { document: { type: 'sales_invoice', id: '1\u0000' } }]) {
      await expectProblem(await stack.api(`/v1/finance/bank/transactions/${unmatchedId}/match`, { method: 'POST', json }), 400);
    }
    await expectProblem(await stack.api('/v1/finance/bank/statements/abc'), 400);
    await expectProblem(await stack.api('/v1/finance/bank/statements/99999999999999999999'), 400);
    await expectProblem(await stack.api('/v1/finance/bank/statements?date_to=[2026-01-01;'), 400);
    await expectProblem(await stack.api('/v1/finance/bank/transactions?match_status=lost'), 400);
  });

  it('a bank integration that names the account says which format its statements come in; another format is 422', async () => {
    const account = 'SK3112000000198742637541';
    const res = await stack.api('/v1/settings/integrations/sk.bank_a', { method: 'POST', json: { type: 'bank', key: 'tatra', name: 'Tatra banka', statements: { account: 'sk31 1200 0000 1987 4263 7541', format: 'camt053' }, config: { token: 'secret' } } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ key: 'tatra', statements: { account, format: 'camt053' } });
    const statement: FixtureStatement = { account, number: '5', currency: 'EUR', opening: '0', closing: '0', from: '2026-11-01', to: '2026-11-30', movements: [] };
    const problem = await expectProblem(await importFile(mt940File([statement]), 'text/plain'), 422, 'statement_format_unexpected');
    expect(problem.detail).toContain('sk.bank_a (tatra) delivers camt053 statements of account SK3112000000198742637541; this file is mt940');
    const ok = await importFile(camt053File([statement]), 'application/xml');
    expect(ok.status, await ok.clone().text()).toBe(200);
  });

  it('an Idempotency-Key replays the import of a file instead of refusing it as imported', async () => {
    const file = mt940File([{ account: 'CZ1208000000000000000077', number: '77', opening: '10.00', closing: '9.00', from: '2026-11-01', to: '2026-11-02', movements: [{ amount: '-1.00', fee: true }] }]);
    const send = (key: string) => stack.api('/v1/finance/bank/statements', { method: 'POST', body: file, headers: { 'content-type': 'text/plain', 'idempotency-key': key } });
    const first = await send('stmt-77');
    expect(first.status, await first.clone().text()).toBe(200);
    const again = await send('stmt-77');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    await expectProblem(await send('stmt-77-other'), 409, 'statement_already_imported');
  });

  it('needs finance:write to import, finance:read to read', async () => {
    const reader = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'r', scopes: ['finance:read'] } })).json();
    await expectProblem(await importFile(mt940File([{ account: ACCOUNT, number: '1', opening: '0', closing: '0', from: '2026-11-01', to: '2026-11-01', movements: [] }]), 'text/plain', '', reader.key), 403, 'insufficient_scope');
    expect((await stack.api('/v1/finance/bank/statements', { key: reader.key })).status).toBe(200);
  });
});
