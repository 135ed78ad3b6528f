import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SUBJECTS, type SettingsWebhookDisabledEvent } from '@ledgerline/contracts';
import { Pump, TENANT_FILTER, recordEvent, sqlRows, type Logger, type MetricsRegistry } from '@ledgerline/service-kit';
import type { WebhookEndpoint } from '../db/webhooks.entities.js';
import { WebhookEndpointSchema } from '../db/webhooks.entities.js';
import { ForbiddenAddressError, guardedLookup, isForbiddenAddress } from './addresses.js';
import { signedHeaders } from './signing.js';
import { signingSecrets, type WebhookSettings } from './endpoints.js';

/** Bytes of an answer kept for the delivery log. */
const RESPONSE_KEPT = 1024;

export interface SenderOptions {
  /** Waits before attempts 2, 3, …: after the last one fails, the endpoint is disabled. */
  retryScheduleMs: number[];
  timeoutMs: number;
  pollMs: number;
  /** Attempts in flight at once. */
  concurrency: number;
}

/** When the next attempt is due after `attempts` failed ones; null when the schedule is used up. */
export function nextAttemptDelay(schedule: readonly number[], attempts: number): number | null {
  return attempts >= 1 && attempts <= schedule.length ? schedule[attempts - 1] : null;
}

interface Claimed {
  id: string | number;
  org_id: string | number;
  endpoint_id: string | number;
  event_id: string;
  payload: string;
  attempts: number;
}

interface AttemptResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
  response: string | null;
}

/** The first `max` bytes of a text, cut on a character boundary. */
function firstBytes(text: string, max: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= max) return text;
  return buf.subarray(0, max).toString('utf8').replace(/\uFFFD+$/, '');
}

/**
 * Sends due deliveries. A delivery is claimed with a lease (`delivering` until the lease ends, so
 * one a crashed process held is sent again), and only when no earlier delivery of the same
 * resource to the same endpoint is still open: per endpoint, the events of one resource arrive
 * in order. Each attempt: one POST of the stored CloudEvent, signed, 10 s at most, no redirects,
 * the address checked on connect; a 2xx completes it, anything else schedules the next attempt
 * or, after the last, fails it and disables the endpoint with a `settings.webhook.disabled` event.
 */
export class WebhookSender extends Pump {
  private backlog = { pending: 0, oldest: null as Date | null };

  constructor(
    private readonly orm: MikroORM,
    private readonly settings: WebhookSettings,
    private readonly opts: SenderOptions,
    log: Logger,
    metrics: MetricsRegistry,
  ) {
    super({ idleMs: opts.pollMs, what: 'webhook pass' }, log);
    metrics.gauge('webhook_deliveries_pending', 'Webhook deliveries not yet delivered (waiting for an attempt or a retry)').set({}, () => this.backlog.pending);
    metrics
      .gauge('webhook_oldest_pending_age_seconds', 'Age of the oldest webhook delivery not yet delivered (0 when none)')
      .set({}, () => (this.backlog.oldest ? Math.max(0, (Date.now() - this.backlog.oldest.getTime()) / 1000) : 0));
  }

  /** Kick it when deliveries were queued or a retry asked for, to look now rather than at the next poll. */
  protected async pass(): Promise<boolean> {
    return (await this.runOnce()) > 0;
  }

  /** One batch: claims due deliveries, sends them, records each outcome. Returns how many. */
  async runOnce(): Promise<number> {
    const em = this.orm.em.fork();
    const claimed = await sqlRows<Claimed>(
      em,
      `update webhook_deliveries d
          set status = 'delivering', attempts = d.attempts + 1, next_attempt_at = now() + (? * interval '1 millisecond')
        where d.id in (
          select c.id from webhook_deliveries c
           where c.status in ('pending', 'delivering') and c.next_attempt_at <= now()
             and not exists (
               select 1 from webhook_deliveries e
                where e.endpoint_id = c.endpoint_id and e.resource is not distinct from c.resource and e.id < c.id
                  and e.status in ('pending', 'delivering'))
           order by c.next_attempt_at, c.id
           limit ?
           for update skip locked)
        returning d.id, d.org_id, d.endpoint_id, d.event_id, d.payload, d.attempts`,
      [this.opts.timeoutMs * 3, this.opts.concurrency],
    );
    await Promise.all(claimed.map((c) => this.deliver(c).catch((err) => this.log.error('webhook delivery bookkeeping failed', { delivery: c.id, err: String(err) }))));
    const [open] = await sqlRows<{ n: number; oldest: Date | null }>(em, "select count(*)::int as n, min(created_at) as oldest from webhook_deliveries where status in ('pending', 'delivering')");
    this.backlog = { pending: open?.n ?? 0, oldest: open?.oldest ? new Date(open.oldest) : null };
    return claimed.length;
  }

  private async deliver(c: Claimed): Promise<void> {
    const em = this.orm.em.fork({ clear: true });
    em.setFilterParams(TENANT_FILTER, { orgId: Number(c.org_id) });
    const endpoint = await em.findOne(WebhookEndpointSchema, { id: Number(c.endpoint_id) });
    if (!endpoint || endpoint.status !== 'enabled') {
      // deleted or disabled since it was queued: nothing is sent; retry after enabling
      await sqlRows(em, "update webhook_deliveries set status = 'failed', last_error = ?, completed_at = now() where id = ?", ['the endpoint is disabled', c.id]);
      return;
    }
    const result = await this.attempt(endpoint, c);
    const delay = result.ok ? null : nextAttemptDelay(this.opts.retryScheduleMs, c.attempts);
    const status = result.ok ? 'succeeded' : delay === null ? 'failed' : 'pending';
    await em.transactional(async (tem) => {
      await sqlRows(
        tem,
        `update webhook_deliveries
            set status = ?, last_status_code = ?, last_duration_ms = ?, last_error = ?, last_response = ?,
                next_attempt_at = case when ? then now() + (? * interval '1 millisecond') else null end,
                completed_at = case when ? then now() else null end
          where id = ?`,
        [status, result.status, result.durationMs, result.error, result.response, status === 'pending', delay ?? 0, status !== 'pending', c.id],
      );
      if (status === 'failed') await this.disable(tem, endpoint, `${c.attempts} attempts failed; the last: ${result.error ?? `HTTP ${result.status}`}`);
    });
    if (status === 'failed') this.log.warn('webhook endpoint disabled after failing deliveries', { webhook_id: endpoint.id, org_id: endpoint.orgId });
  }

  private async disable(em: Parameters<typeof recordEvent>[0], endpoint: WebhookEndpoint, reason: string): Promise<void> {
    const rows = await sqlRows(em, "update webhook_endpoints set status = 'disabled', disabled_reason = ?, updated_at = now() where id = ? and status = 'enabled' returning id", [reason, endpoint.id]);
    if (rows.length === 0) return;
    await recordEvent<SettingsWebhookDisabledEvent>(em, 'settings', {
      subject: SUBJECTS.settingsWebhookDisabled,
      orgId: endpoint.orgId,
      resource: String(endpoint.id),
      data: { webhook_id: endpoint.id, url: endpoint.url, reason },
    });
  }

  /** One POST; never throws. */
  private attempt(endpoint: WebhookEndpoint, c: Claimed): Promise<AttemptResult> {
    const started = Date.now();
    const done = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...r, durationMs: Date.now() - started });
    let url: URL;
    try {
      url = new URL(endpoint.url);
    } catch {
      return Promise.resolve(done({ ok: false, status: null, error: 'the URL no longer parses', response: null }));
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const allowPrivate = this.settings.policy.allowPrivate;
    if (isIP(host) && isForbiddenAddress(host) && !allowPrivate) {
      return Promise.resolve(done({ ok: false, status: null, error: `${host} is an address webhooks may not reach`, response: null }));
    }
    const body = c.payload;
    const headers = {
      ...signedHeaders(signingSecrets(endpoint, this.settings.box, new Date()), c.event_id, Math.floor(Date.now() / 1000), body),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'Ledgerline-Webhooks/1',
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (r: Omit<AttemptResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        resolve(done(r));
      };
      const req = client.request(
        url,
        { method: 'POST', headers, lookup: guardedLookup(allowPrivate), timeout: this.opts.timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on('data', (chunk: Buffer) => {
            if (kept < RESPONSE_KEPT) {
              chunks.push(chunk);
              kept += chunk.length;
            }
          });
          const status = res.statusCode ?? 0;
          const end = () => {
            const text = firstBytes(Buffer.concat(chunks).toString('utf8'), RESPONSE_KEPT);
            const ok = status >= 200 && status < 300;
            // redirects are not followed: the signed body goes only where it was registered
            const error = ok ? null : status >= 300 && status < 400 ? `HTTP ${status} redirect (not followed)` : `HTTP ${status}`;
            finish({ ok, status, error, response: text || null });
          };
          res.on('end', end);
          res.on('error', end);
          res.on('aborted', end);
        },
      );
      const deadline = setTimeout(() => {
        req.destroy(new Error(`no answer within ${this.opts.timeoutMs} ms`));
      }, this.opts.timeoutMs);
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.opts.timeoutMs} ms`)));
      req.on('error', (err) => {
        const message = err instanceof ForbiddenAddressError ? err.message : (err as Error).message;
        finish({ ok: false, status: null, error: message.slice(0, 500), response: null });
      });
      req.on('close', () => clearTimeout(deadline));
      req.end(body);
    });
  }
}
