import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { localClock } from '@ledgerline/service-kit';
import { eventually } from '../support/stack.js';
import { startSystem, type RunningSystem } from '../support/npm-start.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * Every service as two replicas (issue 15): `REPLICAS=2 npm start` runs two processes of each
 * service on one database and one stream; the gateway balances over them. Under mixed load
 * (invoices, credit notes, payments, payout replacements) the first replica of every service is
 * killed with SIGKILL at once. Afterwards every answered document is in the ledger exactly once,
 * numbering is gap-free, the payout's last answered version is the one that stands, and no event
 * was lost or applied twice.
 */

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const SERVICES = ['settings', 'sales', 'purchase', 'finance', 'accounting'] as const;
const DATE = '2030-05-04';

let system: RunningSystem;
let gateway = '';
let key = '';
let pids: Record<string, number> = {};

beforeAll(async () => {
  // what a killed replica's consumers held goes to the other after CONSUMER_ACK_WAIT_MS, the shortest allowed
  system = await startSystem('replicas', { REPLICAS: '2', MAX_OLD_SPACE_MB: '120', RECURRING_POLL_MS: '50', CONSUMER_ACK_WAIT_MS: '10000' }, 150_000);
  ({ gateway, key, pids } = system);
}, 180_000);
afterAll(async () => system?.stop(), 60_000);

const call = (p: string, init: RequestInit & { idem?: boolean } = {}): Promise<Omit<Response, 'json'> & { json(): Promise<Json> }> =>
  fetch(`${gateway}${p}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.idem ? { 'idempotency-key': randomUUID() } : {}), ...(init.headers ?? {}) },
  });

async function ledger(): Promise<Json[]> {
  const all: Json[] = [];
  for (let from = 0; ; from += 1000) {
    const page = await (await call(`/v1/accounting/transactions?take=1000&from=${from}`)).json();
    all.push(...page.entities);
    if (page.entities.length < 1000) return all;
  }
}

describe('two replicas of every service', () => {
  it('runs two processes of every service', () => {
    for (const s of SERVICES) {
      expect(pids[s], s).toBeGreaterThan(0);
      expect(pids[`${s}-2`], `${s}-2`).toBeGreaterThan(0);
    }
  });

  it('a monthly schedule from the first day two months back issues those months and this one at once, each once, with both sales replicas looking', async () => {
    const today = localClock(new Date(), 'Europe/Prague').day;
    const [y, m] = today.split('-').map(Number);
    const first = (back: number) => new Date(Date.UTC(y, m - 1 - back, 1)).toISOString().slice(0, 10);
    const { customer, items } = invoiceBody();
    const schedules: Json[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call('/v1/sales/recurring-invoices', { method: 'POST', body: JSON.stringify({ template: { customer, currency: 'CZK', items }, schedule: { frequency: 'monthly', start_date: first(2) } }) });
      expect(res.status).toBe(200);
      schedules.push(await res.json());
    }
    const issued = await eventually(async () => {
      const lists = await Promise.all(schedules.map(async (s) => (await (await call(`/v1/sales/invoices?recurring_invoice_id=${s.id}&sort=date_issued`)).json()).entities as Json[]));
      return lists.every((l) => l.length >= 3) ? lists : null;
    }, 30_000);
    for (const list of issued) expect(list.map((i) => i.date_issued)).toEqual([first(2), first(1), first(0)]);
    const numbers = new Set(issued.flat().map((i) => i.no));
    const posted = await eventually(async () => {
      const rows = (await ledger()).filter((t) => t.type === 'sales_invoice' && numbers.has(t.no));
      return rows.length >= numbers.size ? rows : null;
    }, 30_000);
    expect(posted.length).toBe(12);
    expect(new Set(posted.map((t) => t.no)).size).toBe(12);
  });

  it('loses nothing and doubles nothing when one replica of every service is killed under mixed load', async () => {
    const invoices: Json[] = [];
    const creditNotes: Json[] = [];
    const payments: Json[] = [];
    const unexpected: string[] = [];
    let killed = false;
    const accept = (what: string, res: Response) => {
      // while replicas die, a request without an Idempotency-Key whose connection dropped is 502/503
      // (never repeated by the gateway: it may have been carried out); anything else is a defect
      if (res.status === 200) return true;
      if (!(killed && [502, 503].includes(res.status))) unexpected.push(`${what}: ${res.status}`);
      return false;
    };

    const payout = await (await call('/v1/finance/payouts', { method: 'POST', body: JSON.stringify({ currency: 'CZK', date_issued: DATE, lines: [{ amount: 100, description: 'v1' }] }) })).json();
    let lastPayoutVersion = payout.version as number;
    let lastPayoutTotal = 100;

    let running = true;
    let tick = 0;
    const load = (async () => {
      while (running) {
        const n = tick++;
        const work: Promise<unknown>[] = [];
        for (let i = 0; i < 4; i++) {
          work.push(
            call('/v1/sales/invoices', { method: 'POST', idem: i % 2 === 0, body: JSON.stringify(invoiceBody({ date_issued: DATE, notes: `replica load ${n}.${i}` })) }).then(async (res) => {
              if (accept('invoice', res)) invoices.push(await res.json());
              else await res.body?.cancel();
            }),
          );
        }
        work.push(
          call('/v1/sales/credit-notes', { method: 'POST', idem: true, body: JSON.stringify({ ...invoiceBody({ date_issued: DATE }), notes: `credit ${n}` }) }).then(async (res) => {
            if (accept('credit note', res)) creditNotes.push(await res.json());
            else await res.body?.cancel();
          }),
        );
        const paid = invoices[n];
        if (paid) {
          work.push(
            call('/v1/finance/bank/transactions', {
              method: 'POST',
              idem: true,
              body: JSON.stringify({ amount: 50, currency: 'CZK', date_transaction: DATE, paid_record: { type: 'sales_invoice', id: paid.id } }),
            }).then(async (res) => {
              if (accept('payment', res)) payments.push(await res.json());
              else await res.body?.cancel();
            }),
          );
        }
        // payout replacements one after another: each names the next version
        const total = 100 + n;
        work.push(
          call(`/v1/finance/payouts/${payout.id}`, { method: 'PUT', body: JSON.stringify({ currency: 'CZK', date_issued: DATE, lines: [{ amount: total, description: `v${n + 2}` }] }) }).then(
            async (res) => {
              if (accept('payout', res)) {
                const body = await res.json();
                if (body.version > lastPayoutVersion) {
                  lastPayoutVersion = body.version;
                  lastPayoutTotal = total;
                }
              } else await res.body?.cancel();
            },
          ),
        );
        await Promise.all(work);
      }
    })();

    await new Promise((r) => setTimeout(r, 3500));
    // three years of monthly invoices due at once: both sales replicas are issuing them when the kill lands
    const threeYearsBack = (() => {
      // the month the schedulers see (their day is Prague's)
      const [y, m] = localClock(new Date(), 'Europe/Prague').day.split('-').map(Number);
      return new Date(Date.UTC(y - 3, m - 1, 1)).toISOString().slice(0, 10);
    })();
    const schedules: Json[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call('/v1/sales/recurring-invoices', { method: 'POST', idem: true, body: JSON.stringify({ template: { customer: invoiceBody().customer, currency: 'CZK', items: invoiceBody().items }, schedule: { frequency: 'monthly', start_date: threeYearsBack } }) });
      if (res.status === 200) schedules.push(await res.json());
    }
    expect(schedules).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 500));
    killed = true;
    for (const s of SERVICES) process.kill(pids[s], 'SIGKILL');
    await new Promise((r) => setTimeout(r, 6000));
    running = false;
    await load;

    expect(unexpected).toEqual([]);
    expect(invoices.length).toBeGreaterThan(20);
    expect(payments.length).toBeGreaterThan(5);
    expect(system.output()).toMatch(/sales\s*\| supervisor: exited \(SIGKILL\)/);

    // numbering: every stored invoice of the day, answered or not, numbered 1…N without a gap
    const stored: string[] = [];
    for (let from = 0; ; from += 1000) {
      const page = await (await call(`/v1/sales/invoices?take=1000&from=${from}&date_issued=${DATE}`)).json();
      stored.push(...page.entities.map((e: Json) => e.no));
      if (page.entities.length < 1000) break;
    }
    const seq = stored.map((no) => Number(no.slice(-5))).sort((a, b) => a - b);
    expect(seq).toEqual(Array.from({ length: seq.length }, (_, i) => i + 1));
    for (const inv of invoices) expect(stored).toContain(inv.no);

    // the ledger: each stored document once, each answered payment once, the payout's last version standing
    const rows = await eventually(async () => {
      const all = await ledger();
      const postedInvoices = all.filter((t) => t.type === 'sales_invoice' && t.date_issued === DATE);
      const postedCredits = new Set(all.filter((t) => t.type === 'sales_credit_note').map((t) => t.no));
      return postedInvoices.length >= stored.length &&
        creditNotes.every((c) => postedCredits.has(c.no)) &&
        all.filter((t) => t.source?.type === 'bank_transaction').length >= payments.length
        ? all
        : undefined;
    }, 60_000, 500);
    const count = (pred: (t: Json) => boolean) => rows.filter(pred).length;
    for (const inv of invoices) expect(count((t) => t.type === 'sales_invoice' && t.no === inv.no), inv.no).toBe(1);
    expect(count((t) => t.type === 'sales_invoice' && t.date_issued === DATE)).toBe(stored.length);
    for (const cn of creditNotes) expect(count((t) => t.type === 'sales_credit_note' && t.no === cn.no), cn.no).toBe(1);
    for (const p of payments) expect(count((t) => t.source?.type === 'bank_transaction' && t.source.id === p.id), `payment ${p.id}`).toBe(1);

    const payoutEntries = await eventually(async () => {
      const all = (await ledger()).filter((t) => t.source?.type === 'payout' && t.source.id === payout.id);
      const reversed = new Set(all.filter((t) => t.reverses_id != null).map((t) => t.reverses_id));
      const standing = all.filter((t) => t.reverses_id == null && !reversed.has(t.id));
      return standing.length === 1 && standing[0].source.version === lastPayoutVersion ? standing : undefined;
    }, 60_000, 500);
    expect(payoutEntries[0].debit).toBe(lastPayoutTotal);

    // every period of every schedule issued once, each in the ledger once, though a replica died mid-way
    const issued = await eventually(async () => {
      // the schedules first, then their invoices: a period issued between the two reads would
      // otherwise show a schedule done and a list one short
      const states = await Promise.all(schedules.map(async (s) => (await call(`/v1/sales/recurring-invoices/${s.id}`)).json()));
      if (!states.every((st) => st.issued_count === 37)) return undefined;
      return Promise.all(schedules.map(async (s) => (await (await call(`/v1/sales/invoices?recurring_invoice_id=${s.id}&take=1000`)).json()).entities as Json[]));
    }, 60_000, 500);
    for (const list of issued) {
      expect(list).toHaveLength(37);
      expect(new Set(list.map((i) => i.date_issued)).size).toBe(37);
    }
    const issuedNos = new Set(issued.flat().map((i) => i.no));
    const posted = await eventually(async () => {
      const entries = (await ledger()).filter((t) => t.type === 'sales_invoice' && issuedNos.has(t.no));
      return entries.length >= issuedNos.size ? entries : undefined;
    }, 60_000, 500);
    expect(posted).toHaveLength(issuedNos.size);

    // the audit trail of every service is whole after the kill
    const verified = await eventually(async () => {
      const v = await (await call('/v1/audit-events/verify')).json();
      return v.services?.every((s: Json) => s.unchained === 0) ? v : undefined;
    }, 30_000, 500);
    expect(verified.ok).toBe(true);
  }, 240_000);
});
