import { INTERNAL_HEADERS } from '@ledgerline/service-kit';
import type { BenchContext } from './run.js';
import { load } from './load.js';
import { spawnProc } from './stack.js';

export interface Benchmark {
  title: string;
  run: (ctx: BenchContext) => Promise<void>;
}

async function waitReadyHello(port: number) {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/hello`)).ok) return;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('hello server did not start');
}

/** 1. Gateway overhead: the same authenticated GET through the gateway, straight to the service, and a bare Hono app. */
const gatewayOverhead: Benchmark = {
  title: 'Gateway overhead (GET /v1/settings/organisation)',
  run: async (ctx) => {
    const seconds = ctx.quick ? 5 : 15;
    const hello = spawnProc('hello', 'bench/hello-hono.ts', 18090, {});
    try {
      await waitReadyHello(18090);
      // warm-up (JIT, connection pools, credential cache)
      await load({ url: `${ctx.stack.gateway}/v1/settings/organisation`, seconds: 2, headers: ctx.auth });
      const bare = await load({ url: 'http://127.0.0.1:18090/hello', seconds });
      const direct = await load({
        url: `${ctx.stack.url('settings')}/v1/settings/organisation`,
        seconds,
        headers: {
          [INTERNAL_HEADERS.orgId]: '1',
          [INTERNAL_HEADERS.scopes]: 'admin',
          [INTERNAL_HEADERS.token]: ctx.stack.internalToken,
        },
      });
      const via = await load({ url: `${ctx.stack.gateway}/v1/settings/organisation`, seconds, headers: ctx.auth });
      ctx.figures.push(
        { name: 'bare Hono hello-world', value: bare.rps, unit: 'req/s', note: `p50 ${bare.p50} ms, p99 ${bare.p99} ms` },
        {
          name: 'service direct (settings)',
          value: direct.rps,
          unit: 'req/s',
          ceiling: bare.rps,
          ceilingName: 'bare Hono',
          ratio: direct.rps / bare.rps,
          note: `p50 ${direct.p50} ms, p99 ${direct.p99} ms`,
        },
        {
          name: 'through gateway (API key)',
          value: via.rps,
          unit: 'req/s',
          ceiling: direct.rps,
          ceilingName: 'direct',
          ratio: via.rps / direct.rps,
          target: '≥ 70 % of direct',
          met: via.rps / direct.rps >= 0.7,
          note: `p50 ${via.p50} ms, p99 ${via.p99} ms, non-2xx ${via.non2xx}`,
        },
        {
          name: 'gateway p99 overhead',
          value: via.p99 - direct.p99,
          unit: 'ms',
          target: '≤ 2 ms',
          met: via.p99 - direct.p99 <= 2,
          note: `gateway p99 ${via.p99} ms vs direct ${direct.p99} ms (same connection count)`,
        },
      );
    } finally {
      hello.child.kill('SIGTERM');
    }
  },
};

export const benchmarks: Benchmark[] = [gatewayOverhead];

// --- document writes ---------------------------------------------------------------------------

export function creditNoteBody(lines = 10) {
  return {
    customer: { id: 42, business_name: 'Bench Customer s.r.o.', vat_no: 'CZ12345678', address: { city: 'Praha', country: 'CZ' } },
    currency: 'CZK',
    date_issued: new Date().toISOString().slice(0, 10),
    items: Array.from({ length: lines }, (_, i) => ({
      title: `Line ${i + 1}`,
      qty: (i % 3) + 1,
      rate: 100 + i * 7.5,
      taxes: [{ tax_code: 'S', tax_rate: i % 2 ? 12 : 21 }],
    })),
  };
}

export function invoiceBody(lines = 2) {
  return { ...creditNoteBody(lines), customer: { id: 43, business_name: 'Bench Buyer a.s.', address: { country: 'CZ' } } };
}

/** 2. Credit notes with 10 lines through the gateway vs the same rows inserted with plain pg. */
const documentWrites: Benchmark = {
  title: 'Document writes (credit notes, 10 lines)',
  run: async (ctx) => {
    const seconds = ctx.quick ? 6 : 20;
    const body = JSON.stringify(creditNoteBody(10));
    const headers = { ...ctx.auth, 'content-type': 'application/json' };
    await load({ url: `${ctx.stack.gateway}/v1/sales/credit-notes`, method: 'POST', seconds: 2, headers, body, connections: 8 });
    const api = await load({ url: `${ctx.stack.gateway}/v1/sales/credit-notes`, method: 'POST', seconds, headers, body, connections: 16 });

    // The database's ceiling: the same rows (counter upsert, document row with its stored body,
    // outbox event) in one transaction per document, from 16 concurrent connections.
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: ctx.stack.dbUrl('sales'), max: 16 });
    const sample = (await pool.query(`select * from sales_documents where doc_type = 'sales_credit_note' order by id desc limit 1`)).rows[0];
    const outbox = (await pool.query('select subject, type, envelope from kit_outbox order by id desc limit 1')).rows[0];
    let n = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const c = await pool.connect();
        try {
          await c.query('begin');
          const i = ++n;
          const counter = await c.query(
            `insert into number_series_counters (series_id, period_key, last_value) values ($1, 'bench', 1)
             on conflict (series_id, period_key) do update set last_value = number_series_counters.last_value + 1 returning last_value`,
            [sample.counter_id],
          );
          await c.query(
            `insert into sales_documents (uid, org_id, doc_type, no, counter_id, customer_id, customer_name, currency, precision, date_issued,
               subtotal_amount, tax_amount, total_amount, amount_paid, amount_due, payment_status, body)
             values (gen_random_uuid(), $1, 'sales_credit_note', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, $11, 'unpaid', $12)`,
            [sample.org_id, `PG${counter.rows[0].last_value}-${i}`, sample.counter_id, sample.customer_id, sample.customer_name, sample.currency,
              sample.precision, sample.date_issued, sample.subtotal_amount, sample.tax_amount, sample.total_amount, sample.body],
          );
          await c.query(
            `insert into kit_outbox (event_id, subject, type, org_id, envelope, sent_at) values (gen_random_uuid(), $1, $2, $3, $4, now())`,
            [outbox.subject, outbox.type, sample.org_id, outbox.envelope],
          );
          await c.query('commit');
        } finally {
          c.release();
        }
      }
    };
    const started = Date.now();
    const workers = Array.from({ length: 16 }, worker);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    stop = true;
    await Promise.all(workers);
    const ceiling = n / ((Date.now() - started) / 1000);
    await pool.end();
    ctx.figures.push({
      name: 'credit notes via gateway',
      value: api.rps,
      unit: 'docs/s',
      ceiling,
      ceilingName: 'plain pg',
      ratio: api.rps / ceiling,
      target: '≥ 40 % of ceiling, ≥ 300/s',
      met: api.rps / ceiling >= 0.4 && api.rps >= 300,
      note: `p50 ${api.p50} ms, p99 ${api.p99} ms, non-2xx ${api.non2xx}, errors ${api.errors}`,
    });
  },
};

benchmarks.push(documentWrites);

// --- compliance ----------------------------------------------------------------------------------

async function createInvoices(ctx: BenchContext, count: number): Promise<number[]> {
  const headers = { ...ctx.auth, 'content-type': 'application/json' };
  const r = await (await import('autocannon')).default({
    url: `${ctx.stack.gateway}/v1/sales/invoices`,
    method: 'POST',
    headers,
    body: JSON.stringify(invoiceBody(2)),
    connections: 8,
    amount: count,
  });
  if (r.non2xx > 0) throw new Error(`${r.non2xx} invoice creations failed`);
  const ids: number[] = [];
  for (let from = 0; ids.length < count; from += 1000) {
    const page = (await (await fetch(`${ctx.stack.gateway}/v1/sales/invoices?take=1000&from=${from}`, { headers: ctx.auth })).json()) as { entities?: Array<{ id: number }> };
    if (!page.entities?.length) break;
    ids.push(...page.entities.map((e: { id: number }) => e.id));
  }
  return ids.slice(0, count);
}

/** 5. A batch of 1000 invoice ids through the gateway. */
const complianceBatch: Benchmark = {
  title: 'Compliance evaluation (1000-id batch)',
  run: async (ctx) => {
    const ids = await createInvoices(ctx, 1000);
    const times: number[] = [];
    for (let i = 0; i < (ctx.quick ? 3 : 10); i++) {
      const t0 = performance.now();
      const res = await fetch(`${ctx.stack.gateway}/v1/sales/invoices/compliance/evaluate`, {
        method: 'POST',
        headers: { ...ctx.auth, 'content-type': 'application/json' },
        body: JSON.stringify(ids),
      });
      const body = (await res.json()) as unknown[];
      times.push(performance.now() - t0);
      if (res.status !== 202 || body.length !== ids.length) throw new Error(`evaluate answered ${res.status}`);
    }
    const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
    ctx.figures.push({
      name: 'compliance 1000 ids (median)',
      value: median,
      unit: 'ms',
      target: '≤ 1000 ms',
      met: median <= 1000,
      note: `runs: ${times.map((t) => t.toFixed(0)).join(', ')} ms`,
    });
  },
};
benchmarks.push(complianceBatch);
