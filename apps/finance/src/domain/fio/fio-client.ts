import { readBoundedText } from '@ledgerline/service-kit';
import { fioAnswerSchema, type FioAnswer } from './fio-statement.js';

/*
 * One call to Fio banka's API (FIO API Bankovnictví): the movements of the token's account for a
 * period, `GET {base}/periods/{token}/{from}/{to}/transactions.json`. The bank answers one call per
 * token every 30 seconds; a call sooner is answered 409 Conflict (429 by a gateway in front of
 * it), which is said as such. The base URL is a setting (FIO_API_URL), so tests answer the
 * published format from a local server; the token is never logged or kept in an error.
 */

export const FIO_CALL_INTERVAL_MS = 30_000;
/** An answer larger than this is not read (a year of a busy account's JSON is a few megabytes). */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

export type FioCall =
  | { kind: 'ok'; answer: FioAnswer }
  | { kind: 'rate_limited'; message: string }
  | { kind: 'failed'; code: string; message: string };

export async function fetchFioPeriod(baseUrl: string, token: string, from: string, to: string): Promise<FioCall> {
  const url = `${baseUrl.replace(/\/+$/, '')}/periods/${encodeURIComponent(token)}/${from}/${to}/transactions.json`;
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    return { kind: 'failed', code: 'bank_unreachable', message: timedOut ? `Fio's API did not answer within ${TIMEOUT_MS / 1000} s` : "Fio's API could not be reached" };
  }
  if (res.status === 409 || res.status === 429) {
    await res.body?.cancel();
    return { kind: 'rate_limited', message: `Fio answered ${res.status}: one call per token every 30 seconds` };
  }
  if (res.status === 401 || res.status === 403 || res.status === 404) {
    await res.body?.cancel();
    return { kind: 'failed', code: 'bank_token_refused', message: `Fio answered ${res.status}: the token is not valid (revoked, mistyped, or not yet active five minutes after it was made)` };
  }
  if (!res.ok) {
    await res.body?.cancel();
    // the bank's documentation lists its 500 ("The server encountered an internal error") among the
    // answers to a token it does not know
    const hint = res.status === 500 ? ' (it answers so to a token it does not know, too: check the token)' : '';
    return { kind: 'failed', code: 'bank_failed', message: `Fio answered ${res.status}${hint}` };
  }
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_ANSWER_BYTES) {
    await res.body?.cancel();
    return { kind: 'failed', code: 'bank_answer_unreadable', message: `Fio answered ${declared} bytes; at most ${MAX_ANSWER_BYTES} are read (fetch a shorter period)` };
  }
  const body = await readBoundedText(res, MAX_ANSWER_BYTES);
  if (body === null) return { kind: 'failed', code: 'bank_answer_unreadable', message: `Fio's answer is over ${MAX_ANSWER_BYTES} bytes (fetch a shorter period)` };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'failed', code: 'bank_answer_unreadable', message: "Fio's answer is not JSON" };
  }
  const parsed = fioAnswerSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'failed', code: 'bank_answer_unreadable', message: `Fio's answer is not the published format: ${issue.path.join('.')}: ${issue.message}` };
  }
  return { kind: 'ok', answer: parsed.data };
}
