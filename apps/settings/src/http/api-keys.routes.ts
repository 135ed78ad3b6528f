import { Hono } from 'hono';
import { z } from 'zod';
import { parseOrThrow, readQuery, pagingShape, page, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { apiKeyView, createApiKey, deleteApiKey, findApiKey, listApiKeys, revokeApiKey, updateApiKey } from '../domain/api-keys.js';
import { apiKeyCreateSchema, apiKeyUpdateSchema } from './schemas.js';
import { caller } from './auth.js';

const idParam = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

export function apiKeyRoutes(deps: ServiceDeps) {
  const r = new Hono<KitEnv>();
  const emit = deps.emit;

  r.get('/', async (c) => {
    caller(c);
    const q = readQuery(c, z.object(pagingShape(100)));
    const { rows, total } = await listApiKeys(c.get('em'), q.from, q.take);
    return respond(c, page(rows.map(apiKeyView), total, q.from, q.take));
  });

  r.post('/', async (c) => {
    const auth = caller(c);
    const input = parseOrThrow(apiKeyCreateSchema, c.get('body'));
    const { record, key } = await createApiKey(c.get('em'), auth.orgId, input);
    return respond(c, { ...apiKeyView(record), key });
  });

  r.get('/:id', async (c) => {
    caller(c);
    const { id } = parseOrThrow(idParam, c.req.param(), 'path');
    return respond(c, apiKeyView(await findApiKey(c.get('em'), id)));
  });

  r.put('/:id', async (c) => {
    caller(c);
    const { id } = parseOrThrow(idParam, c.req.param(), 'path');
    const input = parseOrThrow(apiKeyUpdateSchema, c.get('body'));
    return respond(c, apiKeyView(await updateApiKey(c.get('em'), id, input, emit)));
  });

  r.delete('/:id', async (c) => {
    caller(c);
    const { id } = parseOrThrow(idParam, c.req.param(), 'path');
    return respond(c, await deleteApiKey(c.get('em'), id, emit));
  });

  r.post('/:id/revoke', async (c) => {
    caller(c);
    const { id } = parseOrThrow(idParam, c.req.param(), 'path');
    return respond(c, apiKeyView(await revokeApiKey(c.get('em'), id, emit)));
  });
  return r;
}
