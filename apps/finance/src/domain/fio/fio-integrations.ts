import type { FioIntegration, FioIntegrationReplace, FioIntegrationRequest } from '@ledgerline/contracts';
import { AppError, BusinessRuleError, NotFoundError, localClock, sqlRows, type SecretBox, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { importParsedStatements } from '../statements/import-statement.js';
import { FIO_CALL_INTERVAL_MS, fetchFioPeriod } from './fio-client.js';
import { fioStatement } from './fio-statement.js';
import { orderAccount } from '../payment-orders/accounts.js';

/*
 * Statements fetched from Fio banka (issue 78, decision 241). An integration is one account's API
 * token, sealed with the service's key (bound to the row, never answered), and how often its
 * movements are fetched. A fetch asks the bank for the days since the last successful one (that
 * day included) to today, and imports the answer as a statement of format fio through the import
 * every statement file takes: reconciled, each movement recorded once by the bank's movement id
 * (a movement fetched again is a duplicate), matched to the document it pays. The bank answers one
 * call per token every 30 seconds: a fetch sooner is not made (the scheduler waits, a manual fetch
 * is 429), and the bank's own 409/429 is recorded and retried after the interval it asks for.
 */

export interface FioSettings {
  box: SecretBox;
  /** FIO_API_URL: the bank's REST base (its published `https://fioapi.fio.cz/v1/rest`). */
  apiUrl: string;
}

interface FioRow {
  id: string;
  name: string | null;
  account: string | null;
  token_enc: string;
  token_last4: string;
  interval_minutes: number;
  fetch_from: string;
  next_fetch_ms: string;
  last_call_ms: string | null;
  last_fetch_ms: string | null;
  last_success_ms: string | null;
  last_result: FioIntegration['last_result'];
  last_error: FioIntegration['last_error'];
  created_ms: string;
  updated_ms: string;
}

const ms = (column: string, as: string) => `(extract(epoch from ${column}) * 1000)::bigint as ${as}`;
const COLUMNS = `id, name, account, token_enc, token_last4, interval_minutes, fetch_from::text as fetch_from, ${ms('next_fetch_at', 'next_fetch_ms')},
  ${ms('last_call_at', 'last_call_ms')}, ${ms('last_fetch_at', 'last_fetch_ms')}, ${ms('last_success_at', 'last_success_ms')}, last_result, last_error,
  ${ms('created_at', 'created_ms')}, ${ms('updated_at', 'updated_ms')}`;
const iso = (v: string | null) => (v === null ? null : new Date(Number(v)).toISOString());
const aad = (orgId: number, id: number) => `fio:${orgId}:${id}:token`;
const today = (now: Date) => localClock(now, 'Europe/Prague').day;

function view(r: FioRow): FioIntegration {
  return {
    id: Number(r.id),
    name: r.name,
    account: r.account,
    interval_minutes: r.interval_minutes,
    fetch_from: r.fetch_from,
    token: `****${r.token_last4}`,
    next_fetch_at: iso(r.next_fetch_ms)!,
    last_fetch_at: iso(r.last_fetch_ms),
    last_success_at: iso(r.last_success_ms),
    last_result: r.last_result,
    last_error: r.last_error,
    created_at: iso(r.created_ms)!,
    updated_at: iso(r.updated_ms)!,
  };
}

async function row(scope: TenantScope, id: number, lock: '' | ' for update' = ''): Promise<FioRow> {
  const [r] = await sqlRows<FioRow>(scope.em, `select ${COLUMNS} from fio_integrations where org_id = ? and id = ?${lock}`, [scope.orgId, id]);
  if (!r) throw new NotFoundError(`Fio integration ${id} not found`, 'fio_integration_not_found');
  return r;
}

export const readFioIntegration = async (scope: TenantScope, id: number) => view(await row(scope, id));

export async function listFioIntegrations(scope: TenantScope): Promise<{ entities: FioIntegration[] }> {
  const rows = await sqlRows<FioRow>(scope.em, `select ${COLUMNS} from fio_integrations where org_id = ? order by id limit 100`, [scope.orgId]);
  return { entities: rows.map(view) };
}

const MAX_INTEGRATIONS = 50;

export async function createFioIntegration(ctx: TenantContext, fio: FioSettings, req: FioIntegrationRequest): Promise<FioIntegration> {
  const [{ n }] = await sqlRows<{ n: string }>(ctx.em, 'select count(*) as n from fio_integrations where org_id = ?', [ctx.orgId]);
  if (Number(n) >= MAX_INTEGRATIONS) throw new BusinessRuleError(`An organisation connects at most ${MAX_INTEGRATIONS} Fio accounts`, 'fio_integrations_too_many');
  const now = ctx.now();
  const [{ id }] = await sqlRows<{ id: string }>(
    ctx.em,
    `insert into fio_integrations (org_id, name, account, token_enc, token_last4, interval_minutes, fetch_from, next_fetch_at, created_at, updated_at)
     values (?, ?, ?, '', ?, ?, ?, ?, ?, ?) returning id`,
    [ctx.orgId, req.name ?? null, req.account ?? null, req.token.slice(-4), req.interval_minutes, req.fetch_from ?? today(now), now, now, now],
  );
  // sealed once the row has its id: the sealed token is bound to its own row
  await sqlRows(ctx.em, 'update fio_integrations set token_enc = ? where id = ?', [fio.box.seal(req.token, aad(ctx.orgId, Number(id))), id]);
  return readFioIntegration(ctx, Number(id));
}

export async function replaceFioIntegration(ctx: TenantContext, fio: FioSettings, id: number, req: FioIntegrationReplace): Promise<FioIntegration> {
  const current = await row(ctx, id, ' for update');
  const token = req.token ? { enc: fio.box.seal(req.token, aad(ctx.orgId, id)), last4: req.token.slice(-4) } : { enc: current.token_enc, last4: current.token_last4 };
  await sqlRows(
    ctx.em,
    `update fio_integrations set name = ?, account = ?, token_enc = ?, token_last4 = ?, interval_minutes = ?, fetch_from = ?, updated_at = ?,
       next_fetch_at = least(next_fetch_at, ?::timestamptz)
     where org_id = ? and id = ?`,
    [req.name ?? null, req.account ?? null, token.enc, token.last4, req.interval_minutes, req.fetch_from ?? current.fetch_from, ctx.now(), new Date(ctx.now().getTime() + req.interval_minutes * 60_000), ctx.orgId, id],
  );
  return readFioIntegration(ctx, id);
}

export async function deleteFioIntegration(ctx: TenantContext, id: number): Promise<FioIntegration> {
  const current = view(await row(ctx, id, ' for update'));
  await sqlRows(ctx.em, 'delete from fio_integrations where org_id = ? and id = ?', [ctx.orgId, id]);
  return current;
}

/** An account as its IBAN where it has one (a Czech number/bank code, an IBAN written with spaces), else as written without spaces. */
const accountKey = (a: string) => orderAccount(a)?.iban ?? a.replace(/\s+/g, '').toUpperCase();

export class FioTooSoon extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'bank_rate_limited', 'Too many requests', `Fio answers one call per token every 30 seconds: fetch again in ${retryAfterSeconds} s`, undefined, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/**
 * One fetch of an integration, in the caller's transaction (the integration's row locked by it):
 * the call, the import of what came, and the result or the error recorded on the integration.
 * Not made within 30 seconds of the last call (`FioTooSoon`). An import the bookkeeping refuses
 * (a statement that does not balance, a rate missing, a closed period) is undone to its savepoint
 * and recorded as the error; nothing of it stays.
 */
export async function fetchFio(ctx: TenantContext, fio: FioSettings, id: number): Promise<FioIntegration> {
  const r = await row(ctx, id, ' for update');
  const now = ctx.now();
  if (r.last_call_ms !== null && now.getTime() - Number(r.last_call_ms) < FIO_CALL_INTERVAL_MS) {
    throw new FioTooSoon(Math.ceil((Number(r.last_call_ms) + FIO_CALL_INTERVAL_MS - now.getTime()) / 1000));
  }
  const from = r.last_result?.date_to ?? r.fetch_from;
  const to = today(now) < from ? from : today(now);
  const token = fio.box.open(r.token_enc, aad(ctx.orgId, id));
  // the bank is waited on outside the process: a request gives its admission slot back meanwhile
  const call = await ctx.outside(() => fetchFioPeriod(fio.apiUrl, token, from, to));
  const next = (afterMs: number) => new Date(now.getTime() + afterMs);
  const fail = async (code: string, message: string, retryMs: number) => {
    await sqlRows(ctx.em, `update fio_integrations set last_call_at = ?, last_fetch_at = ?, last_error = ?::jsonb, next_fetch_at = ?, updated_at = ? where org_id = ? and id = ?`, [
      now,
      now,
      JSON.stringify({ at: now.toISOString(), code, message: message.slice(0, 500) }),
      next(retryMs),
      now,
      ctx.orgId,
      id,
    ]);
    ctx.log.warn('fio fetch failed', { integration_id: id, code, detail: message.slice(0, 200) });
    return readFioIntegration(ctx, id);
  };
  const interval = r.interval_minutes * 60_000;
  if (call.kind === 'rate_limited') return fail('bank_rate_limited', call.message, FIO_CALL_INTERVAL_MS);
  if (call.kind === 'failed') return fail(call.code, call.message, interval);
  let statement;
  try {
    statement = fioStatement(call.answer);
  } catch (err) {
    return fail('bank_answer_unreadable', `Fio's answer is not the published format: ${(err as Error).message}`, interval);
  }
  if (r.account && accountKey(r.account) !== accountKey(statement.account)) {
    return fail('fio_account_mismatch', `The token is for account ${statement.account}, not ${r.account}`, interval);
  }
  let recorded = 0;
  let statementId: number | null = null;
  if (statement.entries.length > 0) {
    await sqlRows(ctx.em, 'savepoint fio_import', []);
    try {
      const { statements } = await importParsedStatements(ctx, [statement]);
      recorded = statements[0].entries.filter((e) => e.status !== 'duplicate' && e.status !== 'skipped').length;
      statementId = statements[0].id;
      await sqlRows(ctx.em, 'release savepoint fio_import', []);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      await sqlRows(ctx.em, 'rollback to savepoint fio_import', []);
      ctx.em.clear();
      // the same movements fetched again (the same last movement on the same day): nothing new
      if (err.code !== 'statement_already_imported') return fail(err.code, err.message, interval);
    }
  }
  const result = { date_from: from, date_to: to, movements: statement.entries.length, recorded, statement_id: statementId };
  await sqlRows(
    ctx.em,
    `update fio_integrations set last_call_at = ?, last_fetch_at = ?, last_success_at = ?, last_result = ?::jsonb, last_error = null, next_fetch_at = ?, updated_at = ?
     where org_id = ? and id = ?`,
    [now, now, now, JSON.stringify(result), next(interval), now, ctx.orgId, id],
  );
  return readFioIntegration(ctx, id);
}
