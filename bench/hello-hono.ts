// The framework's ceiling: a bare Hono app on @hono/node-server answering a small JSON body.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const app = new Hono();
app.get('/hello', (c) => c.json({ id: 1, name: 'My organisation', country: 'CZ', legal_currency: 'CZK' }));
const port = Number(process.env.PORT ?? 18090);
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => process.stdout.write(`ready ${port}\n`));
