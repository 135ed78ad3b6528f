// The framework's ceilings: a bare Hono app on @hono/node-server answering a small JSON body
// (`/hello`), and the same app answering the organisation row it reads with settings' own
// statement (one JSON value) through a plain `pg` pool (`/row`, when ROW_DATABASE_URL names
// settings' database): what a GET that reads the database once costs on this machine before any
// code of ours runs.
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
