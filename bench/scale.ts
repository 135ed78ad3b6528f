import { isDeepStrictEqual } from 'node:util';
import type { BenchContext, Figure } from './context.js';
import type { Benchmark } from './context.js';
import { percentile } from './load.js';
import { monotonicUs } from './profiles.js';
import { copyInvoices, copyTransaction, type ScaleShape } from './scale-data.js';
import { measureRebuild } from './scale-rebuild.js';

/*
 * Issue 59: what a large organisation meets. One organisation gets a million invoices and ten
 * million ledger rows (the template documents posted through the API, then copied by SQL in the
 * services' schemas: bench/scale-data.ts), and every read a user pages or runs is measured through
 * the gateway: list pages walked end to end by cursor (p99 over every page, and the first, middle
 * and last page), the same middle page by offset for comparison, an account's ledger over a year,
 * and the reports; then a full ledger rebuild of another organisation (bench/scale-rebuild.ts).
 * `BENCH_SCALE_INVOICES` sets the size (default 1 000 000; quick 100 000), `BENCH_REBUILD_DOCUMENTS`
 * the rebuilt organisation's invoices and payments (default 50 000 of each; quick 5 000).
 */

const LEDGER_ROWS_PER_INVOICE = 10; // 10 000 000 ledger rows for 1 000 000 invoices

interface Walk {
  pages: number;
  rows: number;
  times: number[];
  /** CPU ms per page of each process (sales or accounting, Postgres, gateway). */
  cpu: Record<string, number>;
  total: number;
  totalExact: boolean;
}

async function getJson(ctx: BenchContext, path: string): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${ctx.stack.gateway}${path}`, { headers: ctx.auth });
  const body = await res.json();
  return { status: res.status, body, ms: performance.now() - t0 };
}

/** Every page of a list by its next_cursor, each page timed; at most `maxPages`. */
async function walk(ctx: BenchContext, path: string, maxPages = Infinity): Promise<Walk> {
  const times: number[] = [];
  let rows = 0;
  let cursor: string | null = null;
  let first: any;
  const before = ctx.stack.cpuMs();
  const fromUs = monotonicUs();
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r = await getJson(ctx, cursor ? `${path}${sep}cursor=${cursor}` : path);
    if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    first ??= r.body;
    times.push(r.ms);
    rows += (r.body.entities ?? r.body.lines).length;
    cursor = r.body.next_cursor;
  } while (cursor && times.length < maxPages);
  // `--profile` reads each walk's own stretch, per page
  ctx.windows.push({ label: `walk ${path}`, fromUs, toUs: monotonicUs(), per: { what: 'page', count: times.length } });
  const after = ctx.stack.cpuMs();
  const cpu = Object.fromEntries(['sales', 'accounting', 'postgres', 'gateway'].map((p) => [p, ((after[p] ?? 0) - (before[p] ?? 0)) / times.length]));
  return { pages: times.length, rows, times, cpu, total: first.total, totalExact: first.total_exact };
}

/** Median of `runs` timed GETs of one path (the first is a warm-up, not counted). */
async function timed(ctx: BenchContext, path: string, runs = 5, service?: string): Promise<{ median: number; p99: number; times: number[]; cpu: number | null; body: any }> {
  let body: any;
  const warm = await getJson(ctx, path);
  if (warm.status !== 200) throw new Error(`${path} answered ${warm.status}: ${JSON.stringify(warm.body).slice(0, 300)}`);
  const times: number[] = [];
  const before = ctx.stack.cpuMs();
  for (let i = 0; i < runs; i++) {
    const r = await getJson(ctx, path);
    times.push(r.ms);
    body = r.body;
  }
  const after = ctx.stack.cpuMs();
  return { median: percentile(times, 50), p99: percentile(times, 99), times, cpu: service ? ((after[service] ?? 0) - (before[service] ?? 0)) / runs : null, body };
}

async function post(ctx: BenchContext, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${ctx.stack.gateway}${path}`, { method: 'POST', headers: { ...ctx.auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** The accounting transaction that posted a document, once the ledger has it. */
async function postedTransaction(ctx: BenchContext, sourceType: string, sourceId: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const page = (await getJson(ctx, `/v1/accounting/transactions?source_type=${sourceType}&source_id=${sourceId}`)).body;
    if (page.entities?.length) return Number(page.entities[0].id);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${sourceType} ${sourceId} did not reach the ledger`);
}

/**
 * Each copied entry (source type and id) answered from its stored view equals the same entry built
 * from its rows, read with the view set aside: the copies' views are written by SQL from their
 * template's (bench/scale-data.ts), and a view that does not say what the rows say would make the
 * ledger's figures measure data no posting makes.
 */
async function copiedViewsAnswerAsBuilt(ctx: BenchContext, accounting: import('pg').Client, copies: Array<[string, number]>): Promise<void> {
  for (const [type, id] of copies) {
    const path = `/v1/accounting/transactions?source_type=${type}&source_id=${id}`;
    const stored = await getJson(ctx, path);
    const entity = stored.body.entities?.[0];
    if (stored.status !== 200 || !entity) throw new Error(`${path} answered ${stored.status}: ${JSON.stringify(stored.body).slice(0, 300)}`);
    const aside = await accounting.query('delete from ledger_entry_views where transaction_id = $1 returning transaction_id, org_id, view', [entity.id]);
    if (aside.rows.length !== 1) throw new Error(`the copied entry ${entity.id} (${type} ${id}) has no stored view`);
    try {
      const built = await getJson(ctx, path);
      if (!isDeepStrictEqual(built.body.entities, stored.body.entities)) {
        throw new Error(`the copied entry ${entity.id}'s stored view differs from its rows:\n${JSON.stringify(stored.body.entities[0])}\n${JSON.stringify(built.body.entities?.[0])}`);
      }
    } finally {
      const [r] = aside.rows;
      await accounting.query('insert into ledger_entry_views (transaction_id, org_id, view) values ($1, $2, $3)', [r.transaction_id, r.org_id, r.view]);
    }
  }
}

const fmtMs = (x: number) => x.toFixed(1);
const cpuNote = (w: Walk, service: string) => `CPU per page: ${service} ${w.cpu[service].toFixed(2)} ms, Postgres ${w.cpu.postgres.toFixed(2)} ms, gateway ${w.cpu.gateway.toFixed(2)} ms`;

/** A walked list as figures: p99 over every page, and its first, middle and last page. */
function walkFigures(name: string, w: Walk, service: string): Figure[] {
  const at = (i: number) => w.times[Math.min(w.times.length - 1, Math.max(0, i))];
  const tenth = Math.max(1, Math.floor(w.pages / 10));
  const p99 = percentile(w.times, 99);
  return [
    {
      name: `${name}: every page walked by cursor, p99`,
      value: p99,
      unit: 'ms',
      target: '≤ 50 ms',
      met: p99 <= 50,
      note:
        `${w.pages} pages, ${w.rows} rows (total ${w.total}${w.totalExact ? '' : ', estimated'}); p50 ${fmtMs(percentile(w.times, 50))} ms; ` +
        `first ${fmtMs(at(0))}, middle ${fmtMs(at(Math.floor(w.pages / 2)))}, last ${fmtMs(at(w.pages - 1))} ms; ` +
        `p99 of the first tenth ${fmtMs(percentile(w.times.slice(0, tenth), 99))} ms, of the last ${fmtMs(percentile(w.times.slice(-tenth), 99))} ms`,
    },
    { name: `${name}: ${service}'s CPU per page`, value: w.cpu[service], unit: 'ms', target: '≤ 2 ms', met: w.cpu[service] <= 2, note: cpuNote(w, service) },
  ];
}

export const scale: Benchmark = {
  title: 'Scale: one organisation with 1,000,000 invoices and 10,000,000 ledger rows',
  run: async (ctx) => {
    const invoices = Number(process.env.BENCH_SCALE_INVOICES ?? (ctx.quick ? 100_000 : 1_000_000));
    const shape: ScaleShape = { orgId: 1, invoices, first: '2023-01-01', days: 1095, customers: 5000 };
    const { default: pg } = await import('pg');
    const sales = new pg.Client({ connectionString: ctx.stack.dbUrl('sales') });
    const accounting = new pg.Client({ connectionString: ctx.stack.dbUrl('accounting') });
    for (const db of [sales, accounting]) {
      db.on('error', () => undefined); // the stack drops its databases at the end
      await db.connect();
    }
    try {
      // the templates, posted through the API as a user would
      const customer = { id: 1000, business_name: 'Scale customer 1000', vat_no: 'CZ12345679', address: { city: 'Praha', country: 'CZ' } };
      const invoice = await post(ctx, '/v1/sales/invoices', {
        customer,
        currency: 'CZK',
        date_issued: '2023-01-02',
        items: [
          { title: 'Consulting', qty: 3, rate: 4200, taxes: [{ tax_code: 'S', tax_rate: 21 }] },
          { title: 'Books', qty: 2, rate: 350, taxes: [{ tax_code: 'S', tax_rate: 12 }] },
        ],
      });
      const payment = await post(ctx, '/v1/finance/bank/transactions', {
        account_number: '2400123456/2010',
        amount: invoice.total_amount,
        currency: 'CZK',
        date_transaction: '2023-01-20',
        date_accounting: '2023-01-20',
        paid_record: { type: 'sales_invoice', id: invoice.id },
      });
      const bill = await post(ctx, '/v1/purchase/bills', {
        type: { id: 1, name: 'purchase' },
        vendor: { id: 501, business_name: 'ACME Supplies s.r.o.', vat_no: 'CZ12345678' },
        currency: 'CZK',
        date_issued: '2023-01-05',
        date_due: '2023-01-19',
        vendor_doc_no: 'ACME-SCALE-1',
        items: [
          { description: 'Paper', qty: 20, rate: 100, taxes: [{ tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 }] },
          { description: 'Books', qty: 10, rate: 50, taxes: [{ tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12, rate_type: 'reduced', tax_index: 1 }] },
        ],
      });
      const templates = {
        invoice: await postedTransaction(ctx, 'sales_invoice', invoice.id),
        payment: await postedTransaction(ctx, 'bank_transaction', payment.id),
        bill: await postedTransaction(ctx, 'purchase_bill', bill.id),
      };

      const built = performance.now();
      const salesBase = await copyInvoices(sales, invoice.id, shape);
      const salesSeconds = (performance.now() - built) / 1000;
      const ledgerStarted = performance.now();
      let ledgerRows = await copyTransaction(accounting, templates.invoice, invoices, shape, `'SC' || lpad(g::text, 8, '0')`, `${salesBase - 1} + g`);
      ledgerRows += await copyTransaction(accounting, templates.payment, invoices, shape, `'BT' || lpad(g::text, 8, '0')`, `${10_000_000} + g`);
      const perBill = Number((await accounting.query('select count(*) from ledger_rows where transaction_id = $1', [templates.bill])).rows[0].count);
      const bills = Math.max(0, Math.ceil((invoices * LEDGER_ROWS_PER_INVOICE - ledgerRows) / perBill));
      ledgerRows += await copyTransaction(accounting, templates.bill, bills, shape, `'PB' || lpad(g::text, 8, '0')`, `${20_000_000} + g`);
      // the copies were written with the triggers off: their day sums are summed once from the rows
      await accounting.query('select ledger_day_balances_refresh($1)', [shape.orgId]);
      const ledgerSeconds = (performance.now() - ledgerStarted) / 1000;
      const analyzeStarted = performance.now();
      for (const [db, tables] of [
        [sales, ['sales_documents']],
        [accounting, ['accounting_transactions', 'ledger_rows', 'ledger_tax_rows', 'ledger_entry_views']],
      ] as const) {
        for (const t of tables) await db.query(`vacuum (analyze) ${t}`);
      }
      await copiedViewsAnswerAsBuilt(ctx, accounting, [
        ['sales_invoice', salesBase],
        ['sales_invoice', salesBase + invoices - 1],
        ['bank_transaction', 10_000_001],
        ...(bills > 0 ? [['purchase_bill', 20_000_000 + bills] as [string, number]] : []),
      ]);
      const counts = (await accounting.query('select (select count(*) from ledger_rows where org_id = $1) as rows, (select count(*) from accounting_transactions where org_id = $1) as entries', [shape.orgId])).rows[0];
      const documents = Number((await sales.query(`select count(*) from sales_documents where org_id = $1 and doc_type = 'sales_invoice'`, [shape.orgId])).rows[0].count);
      ctx.figures.push({
        name: 'scale: building the organisation',
        value: (performance.now() - built) / 1000,
        unit: 's',
        note:
          `${documents} invoices (sales ${salesSeconds.toFixed(0)} s), ${Number(counts.entries)} ledger entries with ${Number(counts.rows)} rows and their stored views ` +
          `(${invoices} invoices, ${invoices} payments, ${bills} bills: ${ledgerSeconds.toFixed(0)} s), vacuum and analyze ${((performance.now() - analyzeStarted) / 1000).toFixed(0)} s`,
      });

      // the invoice list: the whole of it walked by cursor; a middle page by offset beside it
      const list = await walk(ctx, '/v1/sales/invoices?take=100');
      ctx.figures.push(...walkFigures('invoice list (100 per page, newest first)', list, 'sales'));
      const byOffset = await timed(ctx, `/v1/sales/invoices?take=100&from=${Math.floor(documents / 2)}`, 5, 'sales');
      ctx.figures.push({
        name: 'invoice list: the middle page by offset (from=), median',
        value: byOffset.median,
        unit: 'ms',
        note: `for comparison with the cursor (offsets read every row before the page); runs ${byOffset.times.map(fmtMs).join(', ')} ms; sales' CPU ${byOffset.cpu?.toFixed(2)} ms per page`,
      });
      const customerList = await walk(ctx, '/v1/sales/invoices?take=100&customer_id=1234');
      ctx.figures.push(...walkFigures("a customer's invoices", customerList, 'sales'));
      const month = await walk(ctx, '/v1/sales/invoices?take=100&date_issued=[2024-06-01;2024-06-30]');
      ctx.figures.push(...walkFigures("a month's invoices", month, 'sales'));

      // the ledger: a month walked by cursor, and the first pages of the whole of it both ways
      const ledgerMonth = await walk(ctx, '/v1/accounting/transactions?take=100&date_posting=[2024-06-01;2024-06-30]');
      ctx.figures.push(...walkFigures("the ledger of a month (100 entries per page)", ledgerMonth, 'accounting'));
      const ledgerStart = await walk(ctx, '/v1/accounting/transactions?take=100', 200);
      const ledgerEnd = await walk(ctx, '/v1/accounting/transactions?take=100&sort=-date_posting&sort=-id', 200);
      ctx.figures.push(...walkFigures('the whole ledger, its first 200 pages', ledgerStart, 'accounting'), ...walkFigures('the whole ledger, its last 200 pages (newest first)', ledgerEnd, 'accounting'));

      // an account over a year: walked by cursor; its middle page by offset beside it
      const year = 'account_number=311&date_from=2024-01-01&date_to=2024-12-31';
      const accountYear = await walk(ctx, `/v1/reporting/financial/account-ledger?${year}&take=500`);
      ctx.figures.push(...walkFigures('account 311 over a year (500 lines a page)', accountYear, 'accounting'));
      const accountByOffset = await timed(ctx, `/v1/reporting/financial/account-ledger?${year}&take=500&from=${Math.floor(accountYear.total / 2)}`, 3, 'accounting');
      ctx.figures.push({
        name: 'account 311 over a year: the middle page by offset (from=), median',
        value: accountByOffset.median,
        unit: 'ms',
        note: `for comparison with the cursor (an offset sums the period's lines before the page); accounting's CPU ${accountByOffset.cpu?.toFixed(1)} ms per page`,
      });

      // the reports
      const reports: Array<[string, string, 'GET' | 'POST']> = [
        ['trial balance of 2024', '/v1/reporting/financial/trial-balance/1/export/json?date_posting=[2024-01-01;2024-12-31]', 'POST'],
        ['VAT return of June 2024', '/v1/reporting/tax/vat-return?date_from=2024-06-01&date_to=2024-06-30', 'GET'],
        ['control statement of June 2024', '/v1/reporting/tax/control-statement?date_from=2024-06-01&date_to=2024-06-30', 'GET'],
        ['balance sheet at the end of 2025', '/v1/reporting/financial/balance-sheet?as_of=2025-12-31', 'GET'],
        ['profit and loss of 2024', '/v1/reporting/financial/profit-and-loss?date_from=2024-01-01&date_to=2024-12-31', 'GET'],
      ];
      for (const [name, path, method] of reports) {
        const times: number[] = [];
        const before = ctx.stack.cpuMs();
        for (let i = 0; i < 4; i++) {
          const t0 = performance.now();
          const res = await fetch(`${ctx.stack.gateway}${path}`, method === 'POST' ? { method, headers: { ...ctx.auth, 'content-type': 'application/json' }, body: '[]' } : { headers: ctx.auth });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${name} answered ${res.status}`);
          if (i > 0) times.push(performance.now() - t0); // the first warms the plan and caches
        }
        const cpu = ((ctx.stack.cpuMs().accounting ?? 0) - (before.accounting ?? 0)) / 4;
        const median = percentile(times, 50);
        ctx.figures.push({ name: `${name}, over the organisation's ledger`, value: median, unit: 'ms', target: '≤ 1000 ms', met: median <= 1000, note: `runs ${times.map(fmtMs).join(', ')} ms; accounting's CPU ${cpu.toFixed(0)} ms a report` });
      }

      // a full rebuild of another organisation's ledger from its events, with the API up
      const rebuildDocuments = Number(process.env.BENCH_REBUILD_DOCUMENTS ?? (ctx.quick ? 5_000 : 50_000));
      ctx.figures.push(...(await measureRebuild(ctx, accounting, rebuildDocuments)));
    } finally {
      await sales.end().catch(() => undefined);
      await accounting.end().catch(() => undefined);
    }
  },
};
