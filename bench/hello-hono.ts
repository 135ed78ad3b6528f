// The framework's ceilings: a bare Hono app on @hono/node-server answering a small JSON body
// (`/hello`), and the same app answering the organisation row it reads with settings' own
// statement (one JSON value) through a plain `pg` pool (`/row`, when ROW_DATABASE_URL names
// settings' database): what a GET that reads the database once costs on this machine before any
// code of ours runs. `/ledger-page` (LEDGER_DATABASE_URL) and `/invoice-page` (SALES_DATABASE_URL)
// do the same for the list pages.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import pg from 'pg';
import { Pool } from 'undici';

const app = new Hono();
app.get('/hello', (c) => c.json({ id: 1, name: 'My organisation', country: 'CZ', legal_currency: 'CZK' }));
if (process.env.ROW_DATABASE_URL) {
  // as large as a service's pool (`poolMax`)
  const pool = new pg.Pool({ connectionString: process.env.ROW_DATABASE_URL, max: 10 });
  app.get('/row', async (c) => {
    const { rows } = await pool.query({ name: 'row', text: 'select to_json(o) as row from organisations o where id = $1', values: [1] });
    return rows.length ? c.json(rows[0].row) : c.json({ error: 'no organisation 1' }, 404);
  });
}
/** The organisation and page size a list page's ceiling is asked for (`?org=&take=`). */
const pageOf = (c: { req: { query: (name: string) => string | undefined } }) => ({
  org: Number(c.req.query('org') ?? '1'),
  take: Math.min(1000, Number(c.req.query('take') ?? '100')),
});
if (process.env.LEDGER_DATABASE_URL) {
  // A ledger page's ceiling (issue 79, part 2): an organisation's first entries, their rows, tax
  // rows and accounts read as accounting's page reads them, through a plain pool, and answered as
  // the rows themselves, with no view made of them: what reading and answering those rows costs
  // on this hour before any code of ours runs.
  const pool = new pg.Pool({ connectionString: process.env.LEDGER_DATABASE_URL, max: 10 });
  app.get('/ledger-page', async (c) => {
    const { org, take } = pageOf(c);
    const entries = (await pool.query({ name: 'entries', text: 'select * from accounting_transactions where org_id = $1 order by date_posting, id limit $2', values: [org, take] })).rows;
    const ids = entries.map((t) => t.id);
    const rows = (await pool.query({ name: 'rows', text: 'select * from ledger_rows where org_id = $1 and transaction_id = any($2::bigint[]) order by transaction_id, ord', values: [org, ids] })).rows;
    const taxRows = (await pool.query({ name: 'tax_rows', text: 'select * from ledger_tax_rows where org_id = $1 and transaction_id = any($2::bigint[]) order by transaction_id, ord', values: [org, ids] })).rows;
    const named = [...new Set([...rows, ...taxRows].map((r) => r.gl_account_number as string))];
    const accounts = (await pool.query({ name: 'accounts', text: 'select * from gl_accounts where org_id = $1 and number = any($2::text[])', values: [org, named] })).rows;
    return c.json({ entities: entries, rows, tax_rows: taxRows, accounts });
  });
}
if (process.env.SALES_DATABASE_URL) {
  // An invoice page's ceiling: an organisation's last invoices' stored bodies, read as sales' list
  // reads them (the `jsonb` as text) and answered as one JSON array of them.
  const pool = new pg.Pool({ connectionString: process.env.SALES_DATABASE_URL, max: 10 });
  app.get('/invoice-page', async (c) => {
    const { org, take } = pageOf(c);
    const { rows } = await pool.query({
      name: 'bodies',
      text: `select body::text as body from sales_documents where org_id = $1 and doc_type = 'sales_invoice' order by id desc limit $2`,
      values: [org, take],
    });
    return c.body(`{"entities":[${rows.map((r) => r.body as string).join(',')}]}`, 200, { 'content-type': 'application/json' });
  });
}
if (process.env.FORWARD_URL) {
  // A proxy with nothing of ours: each request sent on to the service with the internal headers
  // it needs (FORWARD_HEADERS, JSON) and its answer returned whole, as the gateway does after
  // authenticating, routing and limiting; what one forwarded hop costs before any code of ours.
  const upstream = new Pool(process.env.FORWARD_URL, { connections: 64, pipelining: 1 });
  const headers = JSON.parse(process.env.FORWARD_HEADERS ?? '{}') as Record<string, string>;
  app.get('/forward/*', async (c) => {
    const res = await upstream.request({ path: c.req.path.slice('/forward'.length), method: 'GET', headers });
    const body = Buffer.from(await res.body.arrayBuffer());
    return c.body(body, res.statusCode as 200, { 'content-type': String(res.headers['content-type'] ?? 'application/json') });
  });
}
const port = Number(process.env.PORT ?? 18090);
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => process.stdout.write(`ready ${port}\n`));
// stopped by the bench with SIGTERM: exiting normally lets `--cpu-prof` (`--profile`) write its profile
process.on('SIGTERM', () => process.exit(0));
