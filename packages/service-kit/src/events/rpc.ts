import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Subscription } from '@nats-io/transport-node';
import type { EventBus } from './bus.js';
import { TENANT_FILTER } from '../db/orm.js';
import { UpstreamError } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * NATS request-reply for answers a service needs now from another (architecture §1: never read another
 * service's database). Subjects live under `rpc.<service>.…`, outside every stream, so JetStream
 * never captures a request. The organisation is the subject's last token
 * (`rpc.sales.document.lookup.42`), never a header: publishing a subject is what the server's
 * permissions govern, so who may ask for which organisation is decided by the NATS account
 * (`deploy/nats/nats-server.conf`: only the finance user may publish `rpc.sales.>`), while a header
 * anyone may set would be believed. The responder scopes its entity manager to that organisation,
 * so a lookup can never see another tenant's rows.
 */
export interface ResponderDefinition {
  /** e.g. `rpc.sales.document.lookup` (without the deployment prefix or the organisation). */
  subject: string;
  handle: (em: EntityManager, data: unknown, orgId: number) => Promise<unknown>;
}

/** The subject of a request for one organisation. */
export function rpcSubject(subject: string, orgId: number): string {
  return `${subject}.${orgId}`;
}

export function startResponders(defs: ResponderDefinition[], orm: MikroORM, bus: EventBus, log: Logger, queue: string): Subscription[] {
  return defs.map((def) =>
    bus.nc.subscribe(bus.subject(`${def.subject}.*`), {
      queue,
      callback: (err, msg) => {
        if (err) return;
        void (async () => {
          const org = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
          try {
            if (!/^[1-9]\d{0,15}$/.test(org)) throw new Error('the subject names no organisation');
            const em = orm.em.fork({ clear: true });
            em.setFilterParams(TENANT_FILTER, { orgId: Number(org) });
            const data = await def.handle(em, msg.data.length ? JSON.parse(Buffer.from(msg.data).toString('utf8')) : null, Number(org));
            msg.respond(JSON.stringify({ ok: true, data }));
          } catch (e) {
            log.warn('rpc handler failed', { subject: def.subject, err: String(e) });
            msg.respond(JSON.stringify({ ok: false, error: String((e as Error).message ?? e) }));
          }
        })();
      },
    }),
  );
}

/** Asks another service for one organisation; a missing or slow responder is a 503 for the caller's client. */
export async function requestReply<T>(bus: EventBus, subject: string, orgId: number, data: unknown, timeoutMs = 3000): Promise<T> {
  const service = subject.split('.')[1] ?? 'service';
  let reply;
  try {
    reply = await bus.replies.request(bus.subject(rpcSubject(subject, orgId)), JSON.stringify(data), { timeoutMs });
  } catch {
    throw new UpstreamError(503, service, `no answer to ${subject}`);
  }
  const body = JSON.parse(Buffer.from(reply.data).toString('utf8')) as { ok: boolean; data?: T; error?: string };
  if (!body.ok) throw new UpstreamError(502, service, body.error ?? 'request failed');
  return body.data as T;
}
