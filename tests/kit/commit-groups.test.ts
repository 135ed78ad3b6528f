import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { CommitGroups, auditRow, dropDatabase, initOrm, insertAuditRows, prepareEvent, sqlRows, type AtCommitBatch, type AuditRow, type CommitGroupMember } from '@ledgerline/service-kit';
import { isolation } from '../support/stack.js';
import { closeAfterSending, transactionConnection } from '../support/connection-faults.js';

/*
 * Group commit of a gap-free series (issue 15), on the real Postgres: concurrent writers of one
 * lane share a transaction, each in its own savepoint; numbers stay consecutive, a failing member
 * gives back its number without failing its neighbours, and a failed commit fails the whole group
 * and stores nothing of it.
 */

const env = isolation();
const ORG = 7;
const databaseName = `${env.DATABASE_PREFIX}groups`;
let orm: MikroORM;
let groups: CommitGroups;

beforeAll(async () => {
  orm = await initOrm({ databaseUrl: env.DATABASE_URL, databaseName, entities: [], migrations: [], poolMax: 10 });
  const em = orm.em.fork();
  await sqlRows(em, 'create table refs (id int primary key)');
  await sqlRows(em, 'insert into refs values (1)');
  await sqlRows(em, 'create table counters (series text primary key, last_value int not null)');
  await sqlRows(
    em,
    `create table docs (id serial primary key, series text not null, no int not null, amount numeric not null check (amount < 1000000),
      ref int references refs(id) deferrable initially deferred, tx bigint not null, unique (series, no))`,
  );
  groups = new CommitGroups(orm);
});
afterAll(async () => {
  await orm?.close(true);
  await dropDatabase(env.DATABASE_URL, databaseName);
});

const NUMBER = `with c as (
    insert into counters values (?, 1) on conflict (series) do update set last_value = counters.last_value + 1 returning last_value
  ) insert into docs (series, no, amount, ref, tx) select ?, last_value, ?, ?, txid_current() from c returning no, tx`;

/** One numbered document, written the way a request does: join, write, then finish (or abort on error). */
async function numbered(series: string, amount: number, ref = 1, groupsOf = groups): Promise<{ no: number; tx: string }> {
  const member = await groupsOf.join(series, ORG);
  let row: { no: number; tx: string };
  try {
    [row] = await sqlRows<{ no: number; tx: string }>(member.em, NUMBER, [series, series, amount, ref]);
  } catch (err) {
    await member.abort();
    throw err;
  }
  await member.finish();
  return row;
}

async function stored(series: string): Promise<number[]> {
  const rows = await sqlRows<{ no: number }>(orm.em.fork(), 'select no from docs where series = ? order by no', [series]);
  return rows.map((r) => r.no);
}

describe('commit groups', () => {
  it('500 concurrent writers of one series get 1…N consecutively; a failing one gives its number back and fails no neighbour', async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: 500 }, (_, i) => numbered('A', i % 7 === 3 ? 5_000_000 : 100 + i)));
    const failed = outcomes.filter((o) => o.status === 'rejected');
    const ok = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(failed).toHaveLength(Array.from({ length: 500 }, (_, i) => i).filter((i) => i % 7 === 3).length);
    for (const f of failed) expect(String((f as PromiseRejectedResult).reason)).toMatch(/check constraint/);
    const numbers = ok.map((r) => r.no).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: ok.length }, (_, i) => i + 1));
    expect(await stored('A')).toEqual(numbers);
    // they were committed together: far fewer transactions than documents
    const transactions = new Set(ok.map((r) => r.tx)).size;
    expect(transactions).toBeLessThan(ok.length / 4);
  });

  it('a commit that fails fails every member of its group, stores none of them, and the series goes on gap-free', async () => {
    const before = await stored('B');
    expect(before).toEqual([]);
    await numbered('B', 1); // B1

    // hold the lane so the next writers queue into the same group, one of them breaking a deferred key
    const holder = await groups.join('B', ORG);
    await sqlRows(holder.em, NUMBER, ['B', 'B', 2, 1]);
    const queued = [numbered('B', 3), numbered('B', 4, 999), numbered('B', 5)];
    await new Promise((r) => setTimeout(r, 50));
    const held = holder.finish();
    const outcomes = await Promise.allSettled([held, ...queued]);
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      expect((o as PromiseRejectedResult).reason).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
    expect(await stored('B')).toEqual([1]);
    expect((await numbered('B', 6)).no).toBe(2);
  });

  it('a group whose connection goes while the server has its COMMIT answers every member commit_outcome_unknown, not "retry"', async () => {
    await numbered('L', 1); // L1
    const holder = await groups.join('L', ORG);
    await sqlRows(holder.em, NUMBER, ['L', 'L', 2, 1]);
    const queued = [numbered('L', 3), numbered('L', 4)];
    await new Promise((r) => setTimeout(r, 50));
    closeAfterSending(/^COMMIT/i, await transactionConnection(holder.em));
    const outcomes = await Promise.allSettled([holder.finish(), ...queued]);
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      expect((o as PromiseRejectedResult).reason).toMatchObject({ status: 503, code: 'commit_outcome_unknown' });
    }
    // the server had committed the whole group: "retry" would have numbered them all twice
    expect(await stored('L')).toEqual([1, 2, 3, 4]);
    // and the series goes on from there, on a new connection
    expect((await numbered('L', 5)).no).toBe(5);
  });

  it('a group whose COMMIT was lost but whose outbox events are found was made: every member is answered as made (decision 163)', async () => {
    const holder = await groups.join('P', ORG);
    await sqlRows(holder.em, NUMBER, ['P', 'P', 1, 1]);
    holder.emitAtCommit(prepareEvent('probe', { subject: 'probe.group.proved', orgId: ORG, data: {} }));
    const queued = [numbered('P', 2), numbered('P', 3)];
    await new Promise((r) => setTimeout(r, 50));
    closeAfterSending(/^COMMIT/i, await transactionConnection(holder.em));
    const outcomes = await Promise.allSettled([holder.finish(), ...queued]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(await stored('P')).toEqual([1, 2, 3]);
    const [event] = await sqlRows<{ n: number }>(orm.em.fork(), "select count(*)::int as n from kit_outbox where subject like '%probe.group.proved%'");
    expect(event.n).toBe(1);
  });

  it('when the first member of a group fails, those queued behind it still share one commit and take its number', async () => {
    // the first member writes without a savepoint of its own: its failure rolls the transaction back and begins it again
    const first = await groups.join('F', ORG);
    await sqlRows(first.em, NUMBER, ['F', 'F', 1, 1]);
    first.emitAtCommit(prepareEvent('probe', { subject: 'probe.first.failed', orgId: ORG, data: {} }));
    const queued = [numbered('F', 2), numbered('F', 3), numbered('F', 4)];
    await new Promise((r) => setTimeout(r, 50));
    await first.abort();
    const rows = await Promise.all(queued);
    expect(rows.map((r) => r.no)).toEqual([1, 2, 3]);
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
    expect(await stored('F')).toEqual([1, 2, 3]);
    expect(await sqlRows(orm.em.fork(), "select 1 from kit_outbox where subject = 'probe.first.failed'")).toHaveLength(0);
  });

  it('a member that never ends is rolled back after its time and the lane goes on', async () => {
    const impatient = new CommitGroups(orm, { memberTimeoutMs: 200 });
    const stuck: CommitGroupMember = await impatient.join('C', ORG);
    await sqlRows(stuck.em, NUMBER, ['C', 'C', 1, 1]);
    const next = numbered('C', 2, 1, impatient);
    expect((await next).no).toBe(1);
    await expect(stuck.finish()).rejects.toMatchObject({ status: 503 });
    expect(await stored('C')).toEqual([1]);
  });

  it("members' events are written at the group's commit in member order, and an aborted member's never", async () => {
    const emitting = async (amount: number) => {
      const member = await groups.join('E', ORG);
      const event = prepareEvent('probe', { subject: 'probe.doc.noted', orgId: ORG, data: { amount } });
      try {
        await sqlRows(member.em, NUMBER, ['E', 'E', amount, 1]);
        member.emitAtCommit(event);
      } catch (err) {
        await member.abort();
        throw err;
      }
      await member.finish();
      return event.id;
    };
    const outcomes = await Promise.allSettled([100, 5_000_000, 200, 300].map(emitting));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const kept = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const rows = await sqlRows<{ event_id: string; envelope: string }>(orm.em.fork(), "select event_id, envelope from kit_outbox where subject = 'probe.doc.noted' order by id");
    expect(rows.map((r) => r.event_id)).toEqual(kept);
    expect(rows.map((r) => JSON.parse(r.envelope).data.amount)).toEqual([100, 200, 300]);
    // nothing is written for a group whose members all aborted
    const lonely = await groups.join('E', ORG);
    expect(() => lonely.emitAtCommit(prepareEvent('probe', { subject: 'probe.doc.noted', orgId: ORG, data: { amount: 1 } }))).not.toThrow();
    await lonely.abort();
    expect(() => lonely.emitAtCommit(prepareEvent('probe', { subject: 'probe.doc.noted', orgId: ORG, data: { amount: 2 } }))).toThrow(/after the member ended/);
    const after = await sqlRows(orm.em.fork(), "select 1 from kit_outbox where subject = 'probe.doc.noted'");
    expect(after).toHaveLength(3);
  });

  it("members' audit records are written together at the group's commit, in member order, an aborted member's never, whatever text they hold", async () => {
    const statements: number[] = [];
    // the kit's own writer, counted: one statement for the group however many records it holds
    const audit: AtCommitBatch<AuditRow> = {
      write: async (em, rows) => {
        statements.push(rows.length);
        await insertAuditRows(em, rows);
      },
    };
    const recording = async (amount: number) => {
      const member = await groups.join('AU', ORG);
      try {
        await sqlRows(member.em, NUMBER, ['AU', 'AU', amount, 1]);
        member.writeAtCommit(
          audit,
          auditRow({
            orgId: ORG,
            credentialType: 'api_key',
            credentialId: 'key:1',
            requestId: `r-${amount}`,
            operation: 'createDoc',
            method: 'POST',
            path: '/v1/docs',
            resourceType: '/docs',
            resourceId: String(amount),
            status: 200,
            before: null,
            // a NUL and a lone surrogate, which jsonb refuses, in a value and in a name
            after: { amount, note: `a\u0000b\uD800c`, ['k\u0000']: 'x', email: 'jan@example.cz' },
          }),
        );
      } catch (err) {
        await member.abort();
        throw err;
      }
      await member.finish();
    };
    // held, so the other four queue behind it and share its group
    const holder = await groups.join('AU', ORG);
    await sqlRows(holder.em, NUMBER, ['AU', 'AU', 1, 1]);
    const queued = Promise.allSettled([100, 5_000_000, 200, 300].map(recording));
    await new Promise((r) => setTimeout(r, 200));
    await holder.finish();
    expect((await queued).map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(statements).toEqual([3]);
    const rows = await sqlRows<{ request_id: string; after: string; changed_fields: string }>(
      orm.em.fork(),
      "select request_id, after::text as after, changed_fields::text as changed_fields from kit_audit_events where operation = 'createDoc' order by id",
    );
    expect(rows.map((r) => r.request_id)).toEqual(['r-100', 'r-200', 'r-300']);
    expect(JSON.parse(rows[0].after)).toEqual({ amount: 100, note: 'a\uFFFDb\uFFFDc', 'k\uFFFD': 'x', email: '***' });
    expect(rows[0].changed_fields).toBe('{amount,email,k\uFFFD,note}');
  });

  it('lanes of different organisations never share a transaction', async () => {
    const a = await groups.join('D', 1);
    const b = await groups.join('D', 2); // admitted at once: another lane
    const [ta] = await sqlRows<{ tx: string }>(a.em, 'select txid_current() as tx');
    const [tb] = await sqlRows<{ tx: string }>(b.em, 'select txid_current() as tx');
    expect(ta.tx).not.toBe(tb.tx);
    await Promise.all([a.finish(), b.finish()]);
  });
});
