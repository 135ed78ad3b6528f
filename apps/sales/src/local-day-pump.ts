import { Pump, localClock, type BaseConfig, type ServiceDeps } from '@ledgerline/service-kit';
import type { Delivery } from './delivery.js';

export interface LocalDayOptions {
  /** How often a replica looks for work when nothing woke it. */
  pollMs: number;
  /** The time zone whose calendar day is "today". */
  timeZone: string;
  /** The clock (tests move it). */
  now?: () => Date;
}

/** A sales job that runs by the local calendar (recurring invoices, reminders): the pump, the service's deps and delivery, and the local day and time. */
export abstract class LocalDayPump<O extends LocalDayOptions = LocalDayOptions> extends Pump {
  constructor(
    what: string,
    protected readonly deps: ServiceDeps<BaseConfig, unknown>,
    protected readonly delivery: Delivery,
    protected readonly opts: O,
  ) {
    super({ idleMs: opts.pollMs, what }, deps.log);
  }

  /** The local day (YYYY-MM-DD) and time (HH:MM) now. */
  protected clock(): { day: string; time: string } {
    return localClock((this.opts.now ?? (() => new Date()))(), this.opts.timeZone);
  }

  /** Today in the job's time zone. */
  today(): string {
    return this.clock().day;
  }
}
