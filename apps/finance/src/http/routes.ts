import { Hono } from 'hono';
import {
  bankTransactionListQuerySchema,
  bankTransactionRequestSchema,
  payoutListQuerySchema,
  payoutRequestSchema,
} from '@ledgerline/contracts/finance';
import { idPathParams } from '@ledgerline/contracts/common';
import { caller, page, parseOrThrow, readQuery, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { bankTransactionView, listBankTransactions, recordBankTransaction } from '../domain/bank-transactions.js';
import { createPayout, findPayout, listPayouts, payoutView, replacePayout } from '../domain/payouts.js';

/** #16 and `GET /v1/finance/bank/transactions`. */
export function bankTransactionRoutes(deps: ServiceDeps) {
  const r = new Hono<KitEnv>();
  r.post('/', async (c) => {
    const auth = caller(c);
    const req = parseOrThrow(bankTransactionRequestSchema, c.get('body'));
    return respond(c, await recordBankTransaction(c.get('em'), deps.bus, deps.emit, auth.orgId, req));
  });
  r.get('/', async (c) => {
    caller(c);
    const q = readQuery(c, bankTransactionListQuerySchema, ['sort']);
    const { rows, total } = await listBankTransactions(c.get('em'), q);
    return respond(c, page(rows.map(bankTransactionView), total, q.from, q.take));
  });
  return r;
}

/** Payouts: create, read, replace (#19), list (#20). */
export function payoutRoutes(deps: ServiceDeps) {
  const r = new Hono<KitEnv>();
  r.post('/', async (c) => {
    const auth = caller(c);
    const req = parseOrThrow(payoutRequestSchema, c.get('body'));
    return respond(c, await createPayout(c.get('em'), deps.bus, deps.emit, auth.orgId, req));
  });
  r.get('/', async (c) => {
    caller(c);
    const q = readQuery(c, payoutListQuerySchema, ['psp_object_id', 'sort']);
    const { rows, total } = await listPayouts(c.get('em'), q);
    return respond(c, page(rows.map(payoutView), total, q.from, q.take));
  });
  r.get('/:id', async (c) => {
    caller(c);
    const { id } = parseOrThrow(idPathParams, c.req.param(), 'path');
    return respond(c, payoutView(await findPayout(c.get('em'), id)));
  });
  r.put('/:id', async (c) => {
    const auth = caller(c);
    const { id } = parseOrThrow(idPathParams, c.req.param(), 'path');
    // Unknown id first (404), then the body (400/422), then the lock (409).
    await findPayout(c.get('em'), id);
    const req = parseOrThrow(payoutRequestSchema, c.get('body'));
    return respond(c, await replacePayout(c.get('em'), deps.bus, deps.emit, auth.orgId, id, req));
  });
  return r;
}
