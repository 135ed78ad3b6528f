import { AUDITED_SERVICES, hasScope, auditEventsSubject, auditServiceVerificationSchema, auditVerifySubject, type AuditEvent, type AuditServiceVerification } from '@ledgerline/contracts';
import { ForbiddenError, listAuditEvents, page, verifyAuditChain, type EndpointHandlers, type TenantContext } from '@ledgerline/service-kit';

/*
 * One endpoint over the audit trails every service keeps of its own writes (decision 211):
 * settings reads its own and asks each other service for the top of its list (or the walk of its
 * chains), then merges. A service that does not answer makes the answer a 503 naming it, never a
 * list silently missing its records.
 */

type Page = { total: number; events: AuditEvent[] };

/**
 * The services whose records a credential may read: an area's records are that area's data (whole
 * invoices, bills, payments), so they need its read scope, as webhooks do (issue 71); settings'
 * own need settings:read, which the route asks for. Asking for one service the credential may not
 * read is 403 naming the scope; without `service` the list is of the services it may read.
 */
export function readableServices(scopes: readonly string[], asked: AuditEvent['service'] | undefined): readonly AuditEvent['service'][] {
  const may = (s: AuditEvent['service']) => hasScope(scopes, `${s}:read`);
  if (asked) {
    if (!may(asked)) throw new ForbiddenError(`The audit records of ${asked} need the ${asked}:read scope`, 'insufficient_scope', [{ path: 'service', message: `needs ${asked}:read`, code: 'insufficient_scope' }]);
    return [asked];
  }
  return AUDITED_SERVICES.filter(may);
}

export function auditRoutes(retained: boolean): Pick<EndpointHandlers<'settings'>, 'listAuditEvents' | 'verifyAuditEvents'> {
  const fromEach = async <T>(ctx: TenantContext, services: readonly AuditEvent['service'][], own: () => Promise<T>, subject: (s: string) => string, data: unknown) =>
    Promise.all(services.map(async (service) => ({ service, answer: service === 'settings' ? await own() : await ctx.ask<T>(subject(service), data) })));

  return {
    listAuditEvents: async ({ ctx, input: { query: q } }) => {
      const { from, take, service, ...filters } = q;
      const wanted = readableServices(ctx.auth.scopes, service);
      const ask = { ...filters, limit: from + take };
      const pages = await fromEach<Page>(ctx, wanted, () => listAuditEvents(ctx.em, 'settings', ctx.orgId, ask), auditEventsSubject, ask);
      const merged = pages
        .flatMap((p) => p.answer.events)
        .sort((a, b) => (a.recorded_at === b.recorded_at ? (a.id < b.id ? 1 : -1) : a.recorded_at < b.recorded_at ? 1 : -1));
      const total = pages.reduce((n, p) => n + p.answer.total, 0);
      return page(merged.slice(from, from + take), total, from, take);
    },
    verifyAuditEvents: async ({ ctx }) => {
      const walks = await fromEach<AuditServiceVerification>(ctx, AUDITED_SERVICES, () => verifyAuditChain(ctx.em, ctx.orgId, retained), auditVerifySubject, {});
      const services = walks.map(({ service, answer }) => ({ service, ...auditServiceVerificationSchema.parse(answer) }));
      return { ok: services.every((s) => s.ok), services };
    },
  };
}
