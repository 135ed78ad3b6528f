/** An event as a service records it: the envelope is built around it (events/envelope.ts). */
export interface NewEvent<T> {
  /** Catalogue subject without prefix, e.g. `sales.invoice.posted`. */
  subject: string;
  data: T;
  orgId?: number;
  /** The CloudEvents `subject`: the id of the resource the event is about. */
  resource?: string;
  traceparent?: string;
  /** A deterministic id makes re-recording the same fact idempotent; default a random UUID. */
  id?: string;
}
