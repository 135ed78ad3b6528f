import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { expectProblem, invoiceBody } from './helpers.js';
import { apiOf } from './helpers.js';

/*
 * Numbering series (extension): a document's counter_id names a series of its organisation and
 * document type; is_default picks the series of documents that name none.
 */
let stack: Stack;
const api = apiOf(() => stack);
beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
});
afterAll(async () => {
  await stack?.close();
});

const post = (path: string, json: unknown, key?: string) => api(path, { method: 'POST', json, key });
const creditNote = (over: Record<string, unknown> = {}) => invoiceBody({ items: [{ title: 'Refund', qty: 1, rate: 10, taxes: [] }], ...over });

describe('numbering series', () => {
  it('lists the default series of every document type before any document exists', async () => {
    const res = await api('/v1/sales/numbering-series');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ total: 4, from: 0 });
    expect(body.entities.map((s: { doc_type: string; mask: string; is_default: boolean }) => [s.doc_type, s.mask, s.is_default])).toEqual([
      ['sales_invoice', 'INV{YYYY}{#####}', true],
      ['sales_credit_note', 'CN{YYYY}{#####}', true],
      // a proforma's variable symbol (26900001…) is never an invoice's (202600001…)
      ['sales_proforma', 'PF{YY}9{#####}', true],
      ['sales_advance_tax_document', 'DZ{YYYY}{#####}', true],
    ]);
  });

  it('a new series numbers the documents that name it, gap-free, its counter by month', async () => {
    const created = await post('/v1/sales/numbering-series', { doc_type: 'sales_credit_note', name: 'E-shop refunds', mask: 'ESR{YY}{MM}-{###}' });
    expect(created.status).toBe(200);
    const series = await created.json();
    expect(series).toMatchObject({ doc_type: 'sales_credit_note', name: 'E-shop refunds', mask: 'ESR{YY}{MM}-{###}', is_default: false });

    const a = await (await post('/v1/sales/credit-notes', creditNote({ counter_id: series.id }))).json();
    const b = await (await post('/v1/sales/credit-notes', creditNote({ counter_id: series.id }))).json();
    const december = await (await post('/v1/sales/credit-notes', creditNote({ counter_id: series.id, date_issued: '2026-12-01' }))).json();
    expect([a.no, b.no, december.no]).toEqual(['ESR2611-001', 'ESR2611-002', 'ESR2612-001']);
    expect(a.counter_id).toBe(series.id);
    // documents naming no counter_id still use the default series
    expect((await (await post('/v1/sales/credit-notes', creditNote())).json()).no).toBe('CN202600001');
  });

  it('is_default moves the default: documents without counter_id follow it, exactly one default remains', async () => {
    const created = await (await post('/v1/sales/numbering-series', { doc_type: 'sales_invoice', name: 'Invoices 2', mask: 'F{YYYY}/{####}', is_default: true })).json();
    expect(created.is_default).toBe(true);
    expect((await (await post('/v1/sales/invoices', invoiceBody())).json()).no).toBe('F2026/0001');
    const list = await (await api('/v1/sales/numbering-series?doc_type=sales_invoice')).json();
    expect(list.entities.filter((s: { is_default: boolean }) => s.is_default).map((s: { id: number }) => s.id)).toEqual([created.id]);
    // the former default still numbers documents that name it
    const former = list.entities.find((s: { mask: string }) => s.mask === 'INV{YYYY}{#####}');
    expect((await (await post('/v1/sales/invoices', invoiceBody({ counter_id: former.id }))).json()).no).toBe('INV202600001');
  });

  it('a bad mask → 400 naming mask; a series of the other document type or organisation → 422 unknown_counter; nothing stored', async () => {
    const before = (await (await api('/v1/sales/numbering-series')).json()).total;
    for (const mask of ['NO-COUNTER', 'A{####}{##}', 'X{YYYYY}{###}', '']) {
      const problem = await expectProblem(await post('/v1/sales/numbering-series', { doc_type: 'sales_invoice', name: 'Bad', mask }), 400);
      expect(problem.errors![0].path).toBe('mask');
    }
    await expectProblem(await post('/v1/sales/numbering-series', { doc_type: 'sales_order', name: 'X', mask: 'X{###}' }), 400, 'validation_error');
    expect((await (await api('/v1/sales/numbering-series')).json()).total).toBe(before);

    const invoiceSeries = (await (await api('/v1/sales/numbering-series?doc_type=sales_invoice')).json()).entities[0];
    await expectProblem(await post('/v1/sales/credit-notes', creditNote({ counter_id: invoiceSeries.id })), 422, 'unknown_counter');

    const other = await (await api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Other', country: 'CZ', legal_currency: 'CZK' } })).json();
    await expectProblem(await post('/v1/sales/invoices', invoiceBody({ counter_id: invoiceSeries.id }), other.admin_key.key), 422, 'unknown_counter');
    const theirs = await (await api('/v1/sales/numbering-series', { key: other.admin_key.key })).json();
    expect(theirs.entities.map((s: { id: number }) => s.id)).not.toContain(invoiceSeries.id);
  });
});
