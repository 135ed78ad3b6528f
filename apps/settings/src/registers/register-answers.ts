import type { EntityManager } from '@mikro-orm/postgresql';
import type { RegisterName } from '@ledgerline/contracts';
import { AppError, readBoundedText, sqlRows } from '@ledgerline/service-kit';

/*
 * How every register is asked (decision 235): over HTTP at the address its setting names, bounded
 * in time and size, each answer kept with the moment it was read. A fresh kept answer is served
 * without asking; when the register cannot be reached a kept answer of any age is served and says
 * how old it is; without one the caller gets a problem naming the register — 503 when it is not
 * configured or cannot be reached, 504 when it did not answer in time, 502 when it answered
 * something that is not its format. Never a 500, never a hang.
 */

export const REGISTER_TITLES: Record<RegisterName, string> = {
  ares: 'ARES (the Czech business register)',
  vies: 'VIES (the EU VAT number check)',
  vat_payers: "The Czech VAT payers' register",
};

/** Largest answer read from a register: its answers are a few kilobytes. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface RegisterSettings {
  url: string | undefined;
  timeoutMs: number;
  /** How long a kept answer is served without asking again. */
  freshMs: number;
}

/** A problem of a register: its name opens the detail and the field it was asked for carries the code. */
export function registerProblem(register: RegisterName, status: 502 | 503 | 504, code: string, message: string, path: string): AppError {
  const title = { 502: 'Bad gateway', 503: 'Service unavailable', 504: 'Gateway timeout' }[status];
  return new AppError(status, code, title, `${REGISTER_TITLES[register]}: ${message}`, [{ path, message, code }], { 'Retry-After': status === 503 && code === 'register_not_configured' ? '3600' : '30' });
}

/** The register's answer did not have its documented shape (502). */
export class RegisterFormatError extends Error {}

export interface RegisterCall {
  /** The address asked, relative to the register's base URL. */
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}

/** A register's answer as its HTTP status and text. */
export interface RegisterReply {
  status: number;
  text: string;
}

/** Asks a register once; a failure to reach it or a timeout is the register's problem, named. */
export async function askRegister(register: RegisterName, settings: RegisterSettings, call: RegisterCall, path: string): Promise<RegisterReply> {
  if (!settings.url) {
    const setting = { ares: 'ARES_URL', vies: 'VIES_URL', vat_payers: 'VAT_PAYERS_URL' }[register];
    throw registerProblem(register, 503, 'register_not_configured', `not configured on this installation (set ${setting})`, path);
  }
  const url = `${settings.url.replace(/\/+$/, '')}${call.path}`;
  let res: Response;
  try {
    res = await fetch(url, { method: call.method ?? 'GET', body: call.body, headers: { accept: 'application/json, text/xml', ...call.headers }, signal: AbortSignal.timeout(settings.timeoutMs), redirect: 'follow' });
  } catch (err) {
    if ((err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError') {
      throw registerProblem(register, 504, 'register_timeout', `did not answer within ${settings.timeoutMs} ms`, path);
    }
    throw registerProblem(register, 503, 'register_unavailable', `cannot be reached (${(err as { cause?: { code?: string } }).cause?.code ?? 'connection failed'})`, path);
  }
  let text: string;
  try {
    const read = await readBoundedText(res, MAX_ANSWER_BYTES);
    if (read === null) throw new Error(`answered more than ${MAX_ANSWER_BYTES} bytes`);
    text = read;
  } catch (err) {
    if ((err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError') throw registerProblem(register, 504, 'register_timeout', `did not finish its answer within ${settings.timeoutMs} ms`, path);
    throw registerProblem(register, 502, 'register_error', String((err as Error).message), path);
  }
  return { status: res.status, text };
}

export interface KeptAnswer<T> {
  answer: T;
  readAt: Date;
}

export async function keptAnswer<T>(em: EntityManager, register: RegisterName, key: string): Promise<KeptAnswer<T> | null> {
  const [row] = await sqlRows<{ answer: T; read_at: Date }>(em, 'select answer, read_at from register_answers where register = ? and key = ?', [register, key]);
  return row ? { answer: row.answer, readAt: new Date(row.read_at) } : null;
}

export async function keepAnswer(em: EntityManager, register: RegisterName, key: string, answer: unknown, readAt: Date): Promise<void> {
  await sqlRows(
    em,
    `insert into register_answers (register, key, answer, read_at) values (?, ?, ?::jsonb, ?)
     on conflict (register, key) do update set answer = excluded.answer, read_at = excluded.read_at where register_answers.read_at < excluded.read_at`,
    [register, key, JSON.stringify(answer), readAt],
  );
}

/** Where an answer came from, as the API states it. */
export function sourceOf(register: RegisterName, kept: KeptAnswer<unknown>, cached: boolean, now: Date) {
  return { register, read_at: kept.readAt.toISOString(), age_seconds: Math.max(0, Math.floor((now.getTime() - kept.readAt.getTime()) / 1000)), cached };
}

/**
 * The register's answer for `key`: a kept one younger than `freshMs`, else asked now (and kept),
 * else — the register unreachable, slow or garbled — a kept one of any age. `read` asks and
 * parses; its problems (AppError) pass on when nothing is kept. A final answer the register gives
 * (not found) is not a failure: `read` answers it as data.
 */
export async function registerAnswer<T>(
  em: EntityManager,
  register: RegisterName,
  settings: RegisterSettings,
  key: string,
  read: () => Promise<T>,
  now: () => Date = () => new Date(),
): Promise<{ answer: T; source: ReturnType<typeof sourceOf> }> {
  const kept = await keptAnswer<T>(em, register, key);
  if (kept && now().getTime() - kept.readAt.getTime() < settings.freshMs) return { answer: kept.answer, source: sourceOf(register, kept, true, now()) };
  try {
    const answer = await read();
    const readAt = now();
    await keepAnswer(em, register, key, answer, readAt);
    return { answer, source: sourceOf(register, { answer, readAt }, false, readAt) };
  } catch (err) {
    if (kept && err instanceof AppError && err.status >= 502) return { answer: kept.answer, source: sourceOf(register, kept, true, now()) };
    throw err;
  }
}
