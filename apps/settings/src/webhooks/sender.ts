import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Pump, TENANT_FILTER, sqlRows, type Logger, type MetricsRegistry } from '@ledgerline/service-kit';
import type { WebhookEndpoint } from '../db/webhooks.entities.js';
import { WebhookEndpointSchema } from '../db/webhooks.entities.js';
import { ForbiddenAddressError, guardedLookup, isForbiddenAddress } from './addresses.js';
import { signedHeaders } from './signing.js';
import { disableEndpoint, signingSecrets, type WebhookSettings } from './endpoints.js';
import { areaOfEventType, credentialName, ownerGoneReason, ownerMayReceive, ownerScopes } from './access.js';

/** Bytes of an answer kept for the delivery log. */
const RESPONSE_KEPT = 1024;

export interface SenderOptions {
  /** Waits before attempts 2, 3, …: after the last one fails, the endpoint is disabled. */
  retryScheduleMs: number[];
  timeoutMs: number;
  pollMs: number;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** Attempts in flight at once to one organisation's endpoints, and to one endpoint (each counted over every replica). */
  perOrganisation: number;
  perEndpoint: number;
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
  event_type: string;
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
 * Due deliveries, fairly: an organisation's next delivery comes before any organisation's one
 * after it (round robin by organisation), and none of an endpoint or an organisation that already
 * has its most attempts in flight (leases not yet run out, on any replica). An endpoint that never
 * answers holds at most `perEndpoint` attempts, an organisation at most `perOrganisation`, so the
 * others' deliveries never wait on its timeouts. A delivery waits while an earlier one of the same
 * resource to the same endpoint is open (per endpoint, one resource's events arrive in order).
 * Window functions cannot lock rows, so the candidates are claimed by a second statement.
 */
const CANDIDATES = `
with busy as (
  select endpoint_id, org_id from webhook_deliveries where status = 'delivering' and next_attempt_at > now()
), busy_endpoints as (
  select endpoint_id, count(*) as n from busy group by endpoint_id
), busy_orgs as (
  select org_id, count(*) as n from busy group by org_id
), due as (
  select c.id, c.org_id, c.endpoint_id, c.next_attempt_at,
         row_number() over (partition by c.endpoint_id order by c.next_attempt_at, c.id) as in_endpoint
    from webhook_deliveries c
   where c.status in ('pending', 'delivering') and c.next_attempt_at <= now()
     and not exists (
       select 1 from webhook_deliveries e
        where e.endpoint_id = c.endpoint_id and e.resource is not distinct from c.resource and e.id < c.id
          and e.status in ('pending', 'delivering'))
), fitting as (
  select d.id, d.org_id, d.next_attempt_at,
         row_number() over (partition by d.org_id order by d.in_endpoint, d.next_attempt_at, d.id) as in_org
    from due d left join busy_endpoints b on b.endpoint_id = d.endpoint_id
   where d.in_endpoint <= ?::int - coalesce(b.n, 0)
)
select f.id from fitting f left join busy_orgs b on b.org_id = f.org_id
 where f.in_org <= ?::int - coalesce(b.n, 0)
 order by f.in_org, f.next_attempt_at, f.id
 limit ?`;

/**
 * Sends due deliveries. A delivery is claimed with a lease (`delivering` until the lease ends, so
 * one a crashed process held is sent again), fairly between organisations and endpoints
 * (`CANDIDATES`). Attempts run side by side, up to `concurrency`: each freed place is filled at
 * once, so no delivery waits for another's attempt to end. Each attempt: one POST of the stored
 * CloudEvent, signed, 10 s at most, no redirects, the address checked on connect, sent only while
 * the endpoint's owner may read the event's area (`access.ts`); a 2xx completes it, anything else
 * schedules the next attempt or, after the last, fails it and disables the endpoint with a
 * `settings.webhook.disabled` event.
 */
export class WebhookSender extends Pump {
  private backlog = { pending: 0, oldest: null as Date | null };
  private backlogReadAt = 0;
  private readonly inFlight = new Set<Promise<void>>();
  /** Ends the attempts in flight when the sender stops, rather than waiting out their time limits. */
  private readonly stopping = new AbortController();

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
    metrics.gauge('webhook_attempts_in_flight', 'Webhook attempts this process is waiting on').set({}, () => this.inFlight.size);
  }

  /** Kick it when deliveries were queued or a retry asked for, to look now rather than at the next poll. */
  protected async pass(): Promise<boolean> {
    const free = this.opts.concurrency - this.inFlight.size;
    const started = free > 0 ? await this.claimAndStart(free) : 0;
    await this.readBacklog();
    return free > 0 && started === free;
  }

  /**
   * Stops claiming, ends the attempts in flight and puts their deliveries back as they were (due
   * now, the attempt not counted), so a stopping process neither waits out a receiver's time
   * limit nor charges an attempt the receiver never had a chance to answer.
   */
  override async stop(): Promise<void> {
    await super.stop();
    this.stopping.abort();
    await Promise.all([...this.inFlight]);
  }

  private async claimAndStart(limit: number): Promise<number> {
    const em = this.orm.em.fork();
    const candidates = await sqlRows<{ id: string }>(em, CANDIDATES, [this.opts.perEndpoint, this.opts.perOrganisation, limit], { prepared: true });
    if (candidates.length === 0) return 0;
    const claimed = await sqlRows<Claimed>(
      em,
      `update webhook_deliveries d
          set status = 'delivering', attempts = d.attempts + 1, next_attempt_at = now() + (? * interval '1 millisecond')
        where d.id in (
          select c.id from webhook_deliveries c
           where c.id = any(?::bigint[]) and c.status in ('pending', 'delivering') and c.next_attempt_at <= now()
           for update skip locked)
        returning d.id, d.org_id, d.endpoint_id, d.event_id, d.event_type, d.payload, d.attempts`,
      [this.opts.timeoutMs * 3, `{${candidates.map((c) => c.id).join(',')}}`],
    );
    for (const c of claimed) {
      const attempt: Promise<void> = this.deliver(c)
        .catch((err) => this.log.error('webhook delivery bookkeeping failed', { delivery: c.id, err: String(err) }))
        .finally(() => {
          this.inFlight.delete(attempt);
          // a place is free: fill it now, not at the next poll
          this.kick();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  /** The backlog gauges, read at most once a second (a pass runs after every attempt). */
  private async readBacklog(now = false): Promise<void> {
    if (!now && Date.now() - this.backlogReadAt < 1000) return;
    this.backlogReadAt = Date.now();
    const [open] = await sqlRows<{ n: number; oldest: Date | null }>(
      this.orm.em.fork(),
      "select count(*)::int as n, min(created_at) as oldest from webhook_deliveries where status in ('pending', 'delivering')",
    );
    this.backlog = { pending: open?.n ?? 0, oldest: open?.oldest ? new Date(open.oldest) : null };
  }

  private async deliver(c: Claimed): Promise<void> {
    const em = this.orm.em.fork({ clear: true });
    em.setFilterParams(TENANT_FILTER, { orgId: Number(c.org_id) });
    const endpoint = await em.findOne(WebhookEndpointSchema, { id: Number(c.endpoint_id) });
    const unsent = (why: string) => sqlRows(em, "update webhook_deliveries set status = 'failed', last_error = ?, completed_at = now() where id = ?", [why, c.id]);
    if (!endpoint || endpoint.status !== 'enabled') {
      // deleted or disabled since it was queued: nothing is sent; retry after enabling
      await unsent('the endpoint is disabled');
      return;
    }
    const area = areaOfEventType(c.event_type);
    const owner = endpoint.owner ?? null;
    const may = ownerMayReceive(owner, await ownerScopes({ em: em, orgId: endpoint.orgId }, [owner]), area);
    if (may === 'gone') {
      await em.transactional(async (tem) => {
        await sqlRows(tem, "update webhook_deliveries set status = 'failed', last_error = ?, completed_at = now() where id = ?", [ownerGoneReason(owner!), c.id]);
        await disableEndpoint(tem, endpoint, ownerGoneReason(owner!));
      });
      return;
    }
    if (may === 'no') {
      await unsent(`not sent: ${credentialName(owner!)}, which set up this webhook, no longer holds ${area}:read`);
      return;
    }
    const result = await this.attempt(endpoint, c);
    if (this.stopping.signal.aborted) {
      await sqlRows(em, "update webhook_deliveries set status = 'pending', attempts = attempts - 1, next_attempt_at = now() where id = ? and status = 'delivering'", [c.id]);
      return;
    }
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
      if (status === 'failed') await disableEndpoint(tem, endpoint, `${c.attempts} attempts failed; the last: ${result.error ?? `HTTP ${result.status}`}`);
    });
    if (status === 'failed') this.log.warn('webhook endpoint disabled after failing deliveries', { webhook_id: endpoint.id, org_id: endpoint.orgId });
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
        { method: 'POST', headers, lookup: guardedLookup(allowPrivate), timeout: this.opts.timeoutMs, signal: this.stopping.signal },
        (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          const status = res.statusCode ?? 0;
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            kept += chunk.length;
            if (kept >= RESPONSE_KEPT) {
              // the log keeps 1 KB of an answer: the rest is not read (a receiver answering a
              // large body would hold the attempt, and its memory, for as long as it sends)
              end();
              res.destroy();
            }
          });
          function end() {
            const text = firstBytes(Buffer.concat(chunks).toString('utf8'), RESPONSE_KEPT);
            const ok = status >= 200 && status < 300;
            // redirects are not followed: the signed body goes only where it was registered
            const error = ok ? null : status >= 300 && status < 400 ? `HTTP ${status} redirect (not followed)` : `HTTP ${status}`;
            finish({ ok, status, error, response: text || null });
          }
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
