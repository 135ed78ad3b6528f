import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { parseOrThrow, readQuery, pagingShape, page, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { apiKeyView, createApiKey, deleteApiKey, findApiKey, listApiKeys, revokeApiKey, updateApiKey } from '../domain/api-keys.js';
import { apiKeyCreateSchema, apiKeyUpdateSchema } from './schemas.js';
import { caller } from './auth.js';
import { assertGrantable } from '../domain/scope-granting.js';

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
    assertGrantable(auth, input.scopes, 'a new API key');
    const { record, key } = await createApiKey(c.get('em'), auth.orgId, input);
    c.set('secretAnswer', true);
    return respond(c, { ...apiKeyView(record), key });
  });

  r.get('/:id', async (c) => {
    caller(c);
    const { id } = parseOrThrow(idParam, c.req.param(), 'path');
    return respond(c, apiKeyView(await findApiKey(c.get('em'), id)));
  });

  // Changing, deleting or revoking a key is managing what it may do: allowed only for a
  // credential that holds every scope the key holds (or will hold).
  const managedKey = async (c: Context<KitEnv>, id: number, action: string) => {
    const key = await findApiKey(c.get('em'), id);
    assertGrantable(caller(c), key.scopes, `API key ${id} (to ${action} it)`);
    return key;
  };

  r.put('/:id', async (c) => {
    const auth = caller(c);
    const { id } = parseOrThrow(idParam, c.req.param(), 'path');
    const input = parseOrThrow(apiKeyUpdateSchema, c.get('body'));
    await managedKey(c, id, 'change');
    if (input.scopes) assertGrantable(auth, input.scopes, `API key ${id}`);
    return respond(c, apiKeyView(await updateApiKey(c.get('em'), id, input, emit)));
  });

  r.delete('/:id', async (c) => {
    const { id } = parseOrThrow(idParam, c.req.param(), 'path');
    await managedKey(c, id, 'delete');
    return respond(c, await deleteApiKey(c.get('em'), id, emit));
  });

  r.post('/:id/revoke', async (c) => {
    const { id } = parseOrThrow(idParam, c.req.param(), 'path');
    await managedKey(c, id, 'revoke');
    return respond(c, apiKeyView(await revokeApiKey(c.get('em'), id, emit)));
  });
  return r;
}
