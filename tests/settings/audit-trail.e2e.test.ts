import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { eventually, startStack, DATABASE_URL, type Stack } from '../support/stack.js';
import { secondOrganisation } from '../finance/support.js';
import { invoiceBody } from '../sales/helpers.js';
import { billBody } from '../purchase/fixtures.js';
import { expectProblem, expectOk } from '../support/assertions.js';

/*
 * The audit trail (decision 211): every write through the API, in whichever service, is recorded
 * with its credential, request, operation, resource and the state before and after, secrets and
 * personal data masked; one endpoint reads them all; each service's records of an organisation are
 * hash-chained, so a record changed, deleted or cut off in the database is found by /verify.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'], env: { WEBHOOKS_ALLOW_PRIVATE: '1' } });
}, 60_000);
afterAll(async () => stack?.close());

const ok = expectOk;
const events = async (query = '', key?: string) => ok(await stack.api(`/v1/audit-events${query ? `?${query}` : ''}`, { key }));
async function database(service: string) {
  const db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}${service}`) });
  await db.connect();
  return db;
}
const chained = () => eventually(async () => ((await events('take=1000')).entities as any[]).every((e) => e.hash !== null), 10_000);

describe('audit trail', () => {
  let writer: { id: number; key: string };
  let invoice: any;

  it('records writes in every service with who, what and the state before and after, secrets and personal data masked', async () => {
    writer = await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'shop', scopes: ['sales:write', 'purchase:write'] } }));
    invoice = await ok(await stack.api('/v1/sales/invoices', { method: 'POST', key: writer.key, json: invoiceBody({ customer: { business_name: 'Acme', email: 'ap@acme.example', address: { country: 'CZ' } } }) }));
    const bill = await ok(await stack.api('/v1/purchase/bills', { method: 'POST', key: writer.key, json: billBody() }));
    await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { website: 'https://audit.example' } }));
    // a refused write and a read leave nothing
    await expectProblem(await stack.api('/v1/sales/invoices', { method: 'POST', key: writer.key, json: { currency: 'CZK' } }), 400);
    await ok(await stack.api(`/v1/sales/invoices/${invoice.id}`));

    const page = await events();
    const ops = page.entities.map((e: any) => e.operation);
    expect(ops.slice(0, 4)).toEqual(['updateOrganisation', 'createBill', 'createInvoice', 'createApiKey']);
    expect(page.total).toBe(ops.length);

    const created = page.entities.find((e: any) => e.operation === 'createInvoice');
    expect(created).toMatchObject({
      service: 'sales',
      credential: { type: 'api_key', id: `key:${writer.id}` },
      method: 'POST',
      path: '/v1/sales/invoices',
      resource: { type: '/sales/invoices', id: String(invoice.id) },
      status: 200,
      before: null,
      request_id: expect.any(String),
    });
    expect(created.after.total_amount).toBe(invoice.total_amount);
    expect(created.after.customer.email).toBe('***');
    expect(created.changed_fields).toContain('total_amount');
    expect(page.entities.find((e: any) => e.operation === 'createBill').resource).toEqual({ type: '/purchase/bills', id: String(bill.id) });

    const keyRecord = page.entities.find((e: any) => e.operation === 'createApiKey');
    expect(keyRecord.after.key).toBe('***');
    expect(JSON.stringify(page)).not.toContain(writer.key);

    const profile = page.entities.find((e: any) => e.operation === 'updateOrganisation');
    expect(profile.before.website).not.toBe('https://audit.example');
    expect(profile.after.website).toBe('https://audit.example');
    expect(profile.changed_fields).toContain('website');
    expect(profile.changed_fields).not.toContain('name');
  });

  it('an edit and a removal record before and after; filters by resource, credential, operation and time', async () => {
    const schedule = await ok(
      await stack.api('/v1/sales/recurring-invoices', {
        method: 'POST',
        key: writer.key,
        json: { template: { customer: { business_name: 'Acme' }, currency: 'CZK', items: [{ title: 'Hosting', qty: 1, rate: 100 }] }, schedule: { frequency: 'monthly', start_date: '2099-01-01' } },
      }),
    );
    const since = new Date().toISOString();
    await ok(await stack.api(`/v1/sales/recurring-invoices/${schedule.id}/pause`, { method: 'POST', key: writer.key }));
    await ok(await stack.api(`/v1/sales/recurring-invoices/${schedule.id}`, { method: 'DELETE' }));

    const trail = await events(`resource_type=/sales/recurring-invoices&resource_id=${schedule.id}`);
    expect(trail.entities.map((e: any) => e.operation)).toEqual(['deleteRecurringInvoice', 'pauseRecurringInvoice', 'createRecurringInvoice']);
    const [removed, paused] = trail.entities;
    expect(paused.before.status).toBe('active');
    expect(paused.after.status).toBe('paused');
    expect(paused.changed_fields).toEqual(['status', 'updated_at']);
    expect(removed.before.status).toBe('paused');
    expect(removed.after).toBeNull();

    const mine = await events(`credential_id=key:${writer.id}&take=1000`);
    expect(mine.entities.every((e: any) => e.credential.id === `key:${writer.id}`)).toBe(true);
    expect(mine.entities.map((e: any) => e.operation)).not.toContain('updateOrganisation');
    expect((await events(`since=${encodeURIComponent(since)}`)).entities.map((e: any) => e.operation)).toEqual(['deleteRecurringInvoice', 'pauseRecurringInvoice']);
    expect((await events('operation=createBill&service=purchase')).total).toBe(1);
    expect((await events('take=1&from=1')).entities).toHaveLength(1);
    await expectProblem(await stack.api('/v1/audit-events?from=9999&take=1000'), 400, 'validation_error');
    await expectProblem(await stack.api('/v1/audit-events?since=yesterday'), 400, 'validation_error');
    await expectProblem(await stack.api('/v1/audit-events?service=billing'), 400, 'validation_error');
  });

  it("another organisation sees none of it; a key without settings:read reads nothing", async () => {
    const other = await secondOrganisation(stack, 'Audit elsewhere');
    expect((await events('', other.key)).total).toBe(0);
    expect((await ok(await stack.api('/v1/audit-events/verify', { key: other.key }))).ok).toBe(true);
    await expectProblem(await stack.api('/v1/audit-events', { key: writer.key }), 403);
  });

  it('a removed file is recorded as it was; a reminder text is kept as worded, a URL token masked (issue 71)', async () => {
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
    const form = new FormData();
    form.set('file', new Blob([pdf], { type: 'application/pdf' }), 'order.pdf');
    const kept = await ok(await stack.api(`/v1/sales/invoices/${invoice.id}/attachments`, { method: 'POST', body: form }));
    await ok(await stack.api(`/v1/sales/invoices/${invoice.id}/attachments/${kept.id}`, { method: 'DELETE' }));
    await chained();
    const removal = (await events('service=sales&take=1000')).entities.find((e: any) => e.method === 'DELETE' && e.path.endsWith(`/attachments/${kept.id}`));
    expect(removal.before).toMatchObject({ id: kept.id, file_name: 'order.pdf', size: pdf.length });
    expect(removal.after).toBeNull();

    const levels = { levels: [{ days_after_due: 7, email: { en: { subject: 'Reminder {{ invoices }}', body: 'Please pay {{ total_due }}.' } } }] };
    await ok(await stack.api('/v1/settings/reminders', { method: 'PUT', json: levels }));
    const hook = await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: 'http://127.0.0.1:9/in?token=SECRET-TOKEN-123&site=shop', events: ['sales.invoice.*'] } });
    await chained();
    const reminder = (await events('service=sales&take=1000')).entities.find((e: any) => e.operation === 'putReminderSettings');
    expect(reminder.after.levels[0].email.en).toEqual({ subject: 'Reminder {{ invoices }}', body: 'Please pay {{ total_due }}.' });
    expect(hook.status, await hook.clone().text()).toBe(200);
    const created = (await events('service=settings&take=1000')).entities.find((e: any) => e.operation === 'createWebhook');
    expect(created.after.url).toBe('http://127.0.0.1:9/in?token=***&site=shop');
    expect(JSON.stringify(await events('take=1000'))).not.toContain('SECRET-TOKEN-123');
  });

  it("an area's records need that area's read scope (issue 71: settings:read read whole invoices)", async () => {
    const settingsReader = (await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'settings reader', scopes: ['settings:read'] } }))).key;
    for (const service of ['sales', 'purchase', 'finance', 'accounting']) {
      const problem = await expectProblem(await stack.api(`/v1/audit-events?service=${service}`, { key: settingsReader }), 403, 'insufficient_scope');
      expect(problem.errors).toEqual([expect.objectContaining({ path: 'service', message: `needs ${service}:read` })]);
    }
    // without a service: only the areas it may read, so not a line of the invoice
    const own = await events('take=1000', settingsReader);
    expect(own.total).toBeGreaterThan(0);
    expect(new Set(own.entities.map((e: any) => e.service))).toEqual(new Set(['settings']));
    expect(JSON.stringify(own)).not.toContain(invoice.no);
    // settings:read with sales:read reads sales' records too, and only those
    const both = (await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'sales auditor', scopes: ['settings:read', 'sales:read'] } }))).key;
    const sales = await events('service=sales&take=1000', both);
    expect(sales.entities.some((e: any) => e.resource?.id === String(invoice.id) || JSON.stringify(e).includes(invoice.no))).toBe(true);
    expect(new Set((await events('take=1000', both)).entities.map((e: any) => e.service))).toEqual(new Set(['settings', 'sales']));
    await expectProblem(await stack.api('/v1/audit-events?service=purchase', { key: both }), 403, 'insufficient_scope');
  });

  it('verify walks every chain; a changed, a deleted and a cut-off record are each found', async () => {
    await chained();
    const whole = await ok(await stack.api('/v1/audit-events/verify'));
    expect(whole.ok).toBe(true);
    expect(whole.services.map((s: any) => s.service).sort()).toEqual(['accounting', 'finance', 'purchase', 'sales', 'settings']);
    expect(whole.services.find((s: any) => s.service === 'sales').records).toBeGreaterThanOrEqual(4);

    const sales = await database('sales');
    try {
      // the records are append-only: a change is refused by the database itself
      const { rows } = await sales.query("select id, seq from kit_audit_events where operation = 'createInvoice' order by seq limit 1");
      await expect(sales.query(`update kit_audit_events set after = jsonb_set(after, '{total_amount}', '1') where id = $1`, [rows[0].id])).rejects.toThrow(/append-only/);
      await expect(sales.query(`update kit_audit_events set hash = repeat('0', 64) where id = $1`, [rows[0].id])).rejects.toThrow(/append-only/);
      // someone who owns the table turns that off and makes the invoice look smaller in the trail
      await sales.query('alter table kit_audit_events disable trigger kit_audit_events_append_only');
      await sales.query(`update kit_audit_events set after = jsonb_set(after, '{total_amount}', '1') where id = $1`, [rows[0].id]);
      await sales.query('alter table kit_audit_events enable trigger kit_audit_events_append_only');
      let report = await ok(await stack.api('/v1/audit-events/verify'));
      expect(report.ok).toBe(false);
      expect(report.services.find((s: any) => s.service === 'sales').problems).toEqual([{ seq: Number(rows[0].seq), id: Number(rows[0].id), problem: 'hash_mismatch' }]);
      expect(report.services.filter((s: any) => !s.ok).map((s: any) => s.service)).toEqual(['sales']);

      // a record in the middle deleted
      const { rows: middle } = await sales.query("select id, seq from kit_audit_events where operation = 'pauseRecurringInvoice'");
      await sales.query('delete from kit_audit_events where id = $1', [middle[0].id]);
      report = await ok(await stack.api('/v1/audit-events/verify'));
      expect(report.services.find((s: any) => s.service === 'sales').problems).toContainEqual({ seq: Number(middle[0].seq), id: null, problem: 'missing_record' });

      // the newest record cut off the end
      const purchase = await database('purchase');
      try {
        await purchase.query('delete from kit_audit_events where id = (select max(id) from kit_audit_events)');
      } finally {
        await purchase.end();
      }
      report = await ok(await stack.api('/v1/audit-events/verify'));
      expect(report.services.find((s: any) => s.service === 'purchase').problems.map((p: any) => p.problem)).toEqual(['chain_cut_off']);
    } finally {
      await sales.end();
    }
  });
  it("a write's answer is recorded and kept for its replay as it was sent, without reading it back through a clone", async () => {
    // A clone turns the server's lightweight answer into a Web Response it then has to stream
    // (about 0.2 ms a document): the unit of work reads the text the kit made the answer from.
    // (the server's lightweight Response clones through the Web Response it extends)
    let proto = Response.prototype as { clone: () => Response };
    if (!Object.getOwnPropertyDescriptor(proto, 'clone')?.writable) proto = Object.getPrototypeOf(proto);
    const clone = proto.clone;
    let clones = 0;
    proto.clone = function (this: Response) {
      clones++;
      return clone.call(this);
    };
    let sent: string;
    try {
      const res = await stack.api('/v1/sales/invoices', { method: 'POST', headers: { 'idempotency-key': 'answer-text-1' }, json: invoiceBody({ notes: 'answer text' }) });
      expect(res.status).toBe(200);
      sent = await res.text();
    } finally {
      proto.clone = clone;
    }
    expect(clones).toBe(0);
    const invoice = JSON.parse(sent);
    const replay = await stack.api('/v1/sales/invoices', { method: 'POST', headers: { 'idempotency-key': 'answer-text-1' }, json: invoiceBody({ notes: 'answer text' }) });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(sent);
    const record = (await events('take=1000')).entities.find((e: any) => e.resource.id === String(invoice.id) && e.operation === 'createInvoice');
    expect(record.after).toMatchObject({ id: invoice.id, no: invoice.no, total_amount: invoice.total_amount, notes: 'answer text' });
    expect(record.after.items).toHaveLength(invoice.items.length);
  });
});
