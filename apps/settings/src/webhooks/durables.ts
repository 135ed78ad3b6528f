import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { WEBHOOK_SUBJECTS, subjectMatches } from '@ledgerline/contracts';
import { ConsumerSwitch, sqlRows, type Logger } from '@ledgerline/service-kit';

/** Serialises the endpoint writes that open durables with the sweeps that retire them, across replicas. */
const LOCK = "select pg_advisory_xact_lock(hashtextextended('settings:webhook-fanout-durables', 0))";
/** Each selected pattern with the creation of the oldest enabled endpoint that selects it, but one (`?`: its id, 0 for none). */
const SELECTED_SINCE = `select p.pattern, min(e.created_at) as since
  from webhook_endpoints e, jsonb_array_elements_text(e.events) as p(pattern)
  where e.status = 'enabled' and e.id <> ? group by p.pattern`;

/** When the oldest endpoint selecting `subject` was created, of `SELECTED_SINCE`'s rows; undefined when none does. */
function oldestSelecting(rows: Array<{ pattern: string; since: Date | string }>, subject: string): Date | undefined {
  const times = rows.filter((r) => subjectMatches(r.pattern, subject)).map((r) => new Date(r.since).getTime());
  return times.length ? new Date(Math.min(...times)) : undefined;
}

/** The webhook subjects some enabled endpoint selects, of its patterns (`sales.>`, `*.*.posted`). */
function selectedSubjects(patterns: Iterable<string>): Set<string> {
  const list = [...patterns];
  return new Set(WEBHOOK_SUBJECTS.filter((s) => list.some((p) => subjectMatches(p, s))));
}

/**
 * The fan-out's durable consumers exist only for the subjects some enabled endpoint selects
 * (decision 179): on NATS 2.9 a consumer cannot filter by organisation list, so a durable of a
 * subject receives every organisation's events, and with no endpoint selecting it all of them
 * were read and acknowledged for nothing (a third of a millisecond of CPU per posted document).
 *
 * An endpoint that comes to select a subject opens its durable in the request's transaction,
 * under a database lock, before the endpoint commits: the durable takes the events published from
 * then on, so none published after the endpoint exists is missed. Every replica sweeps every
 * `everyMs`: it follows a durable another replica opened, and, under the same lock, retires the
 * durables no enabled endpoint selects any more (disabled, deleted or changed endpoints, or
 * durables an older version kept for every subject). The lock orders a sweep's retirement
 * against an endpoint's opening, so a sweep never deletes a durable an endpoint just opened.
 */
export class FanoutDurables {
  readonly switches = new Map<string, ConsumerSwitch>(WEBHOOK_SUBJECTS.map((s) => [s, new ConsumerSwitch()]));
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  /** Whether a sweep has asked the server once (a durable this replica could not follow at boot). */
  private checkedOnce = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly log: Logger,
  ) {}

  switchOf(subject: string): ConsumerSwitch {
    const s = this.switches.get(subject);
    if (!s) throw new Error(`${subject} is not a webhook subject`);
    return s;
  }

  /**
   * Opens the durables of the subjects an enabled endpoint's patterns select, in the transaction
   * that writes it (`em`): a NATS failure fails the write, so no endpoint is saved that would not
   * receive its events. A durable is made taking new events, or — where other endpoints select
   * its subject yet it is missing (see the sweep) — from the oldest of them.
   */
  async opened(em: EntityManager, endpointId: number, patterns: string[]): Promise<void> {
    await sqlRows(em, LOCK, []);
    const others = await sqlRows<{ pattern: string; since: Date }>(em, SELECTED_SINCE, [endpointId]);
    for (const subject of selectedSubjects(patterns)) await this.switchOf(subject).open(oldestSelecting(others, subject));
  }

  start(everyMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep().catch((err) => this.log.warn('webhook fan-out sweep failed; trying again', { err: String(err) })), everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping?.catch(() => undefined);
  }

  /**
   * One sweep: the subjects enabled endpoints select, read without a lock; only when this replica's
   * consumption differs from them (a durable to follow or retire, one deleted under it) is the
   * lock taken and the server asked. A steady system costs one small statement a sweep.
   */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    if (![...this.switches.values()].every((s) => s.attached)) return;
    const em = this.orm.em.fork();
    const wanted = await sqlRows<{ pattern: string; since: Date }>(em, SELECTED_SINCE, [0], { prepared: true });
    const settled = [...this.switches].every(([subject, s]) => s.consuming === (oldestSelecting(wanted, subject) !== undefined));
    if (settled && this.checkedOnce) return;
    await em.transactional(async (tem) => {
      await sqlRows(tem, LOCK, []);
      const selected = await sqlRows<{ pattern: string; since: Date }>(tem, SELECTED_SINCE, [0]);
      for (const [subject, s] of this.switches) {
        const since = oldestSelecting(selected, subject);
        if (since) {
          if (await s.exists()) await s.follow();
          else {
            // A subject a new version added, which endpoints' patterns already select (its events
            // published by a service deployed before this one), or a durable deleted from
            // outside: read from the oldest selecting endpoint's creation, so no event since is
            // lost to them (one still in the delivery log is not queued twice: deliveries are unique).
            this.log.warn('webhook fan-out durable missing for a selected subject; made from the oldest selecting endpoint', { subject, since: since.toISOString() });
            await s.open(since);
          }
        } else if (s.consuming || (await s.exists())) {
          await s.retire();
          this.log.info('webhook fan-out durable retired: no enabled endpoint selects its subject', { subject });
        }
      }
    });
    this.checkedOnce = true;
  }
}
