import { AppError, serviceContext, sqlRows, tenantEm, type BaseConfig, type ServiceDeps, type TenantContext } from '@ledgerline/service-kit';
import { fetchFio, FioTooSoon, type FioSettings } from './fio-integrations.js';

/** Integrations fetched in one pass; the rest wait for the next. */
const BATCH = 20;

/*
 * Fetches what Fio integrations have due (issue 78). Each fetch is one transaction that locks its
 * integration (skipping one another replica holds), so an account is fetched once however many
 * replicas look. A fetch that fails records its error and is tried again after its interval (the
 * bank's "too often" after 30 seconds); one that cannot even be recorded (the database gone) is
 * logged and tried at the next pass.
 */
export class FioScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly deps: ServiceDeps<BaseConfig, unknown>,
    private readonly fio: FioSettings,
    private readonly pollMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.pass()
        .catch((err: unknown) => this.deps.log.warn('fio fetch pass failed; trying again', { err: String(err) }))
        .finally(() => {
          this.running = null;
        });
    }, this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass over what is due now. */
  async pass(): Promise<void> {
    const due = await sqlRows<{ id: string; org_id: string }>(this.deps.orm.em.fork(), 'select id, org_id from fio_integrations where next_fetch_at <= now() order by next_fetch_at limit ?', [BATCH]);
    for (const d of due) {
      const orgId = Number(d.org_id);
      try {
        await tenantEm(this.deps.orm, orgId).transactional(async (tx) => {
          const [free] = await sqlRows(tx, 'select 1 from fio_integrations where org_id = ? and id = ? and next_fetch_at <= now() for update skip locked', [orgId, d.id]);
          if (!free) return;
          const ctx = { ...serviceContext(this.deps, tx, 'fio-scheduler', orgId), orgId } as TenantContext;
          await fetchFio(ctx, this.fio, Number(d.id));
        });
      } catch (err) {
        // called too soon (a manual fetch just now): the row says when to come back
        if (err instanceof FioTooSoon) {
          await sqlRows(tenantEm(this.deps.orm, orgId), `update fio_integrations set next_fetch_at = last_call_at + interval '30 seconds' where org_id = ? and id = ?`, [orgId, d.id]);
          continue;
        }
        if (err instanceof AppError && err.status < 500) continue;
        this.deps.log.warn('fio fetch failed and could not be recorded', { integration_id: Number(d.id), err: String(err) });
      }
    }
  }
}
