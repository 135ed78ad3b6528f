import { createHash } from 'node:crypto';
import { RPC_SUBJECTS, repoRatesAnswerSchema } from '@ledgerline/contracts';
import { AppError, isoDay, organisationReplica, requestReply, sqlRows, tenantEm, type BaseConfig, type ServiceDeps, type TenantScope } from '@ledgerline/service-kit';
import type { Delivery } from '../delivery.js';
import { LocalDayPump, type LocalDayOptions } from '../local-day-pump.js';
import { readLetter, writeReminderLetters, type LetterRow, type WrittenLetter } from './reminders.js';
import { reminderLetterHtml } from './letter.js';
import type { RepoFixings } from './statutory-interest.js';

export interface ReminderOptions extends LocalDayOptions {
  /** The local time (HH:MM) after which a day's reminders go out, or `off`. */
  at: string;
  fixings: RepoFixings;
}

const BATCH = 50;
/** Letters printed on request (not yet e-mailed) a process keeps. */
const PRINTED_KEPT = 32;
/** Tries of a letter's e-mail before it is failed, 30 s apart and four times longer each time. */
export const MAX_ATTEMPTS = 5;
const RETRY_BASE_SECONDS = 30;

/*
 * The daily run: once a day after `at`, every organisation with reminder levels set has its run
 * (reminder_runs marks the day done, in the run's transaction, so one replica runs it). Letters
 * are e-mailed after their run commits, from those still pending: a letter is never sent for a run
 * that did not commit, and one interrupted before it was marked is sent again.
 */
export class ReminderScheduler extends LocalDayPump<ReminderOptions> {
  constructor(deps: ServiceDeps<BaseConfig, unknown>, delivery: Delivery, opts: ReminderOptions) {
    super('payment reminders', deps, delivery, opts);
  }

  /**
   * The day's letters of one organisation, written in `scope`'s transaction, with its repo-rate
   * history as settings keeps it (issue 70). Settings not answering fails the run (503 to a client,
   * the next look for the daily run): a letter is never written with interest left out for it.
   */
  async write(scope: TenantScope, day: string): Promise<WrittenLetter[]> {
    const org = await organisationReplica(scope);
    const history = repoRatesAnswerSchema.parse(await requestReply(this.deps.bus, RPC_SUBJECTS.settingsRepoRates, scope.orgId, {}));
    return writeReminderLetters(scope, day, { fixings: this.opts.fixings, table: history }, org?.name ?? null);
  }

  protected async pass(): Promise<boolean> {
    const clock = this.clock();
    if (this.opts.at !== 'off' && clock.time >= this.opts.at) {
      const due = await sqlRows<{ org_id: string }>(
        this.deps.orm.em.fork(),
        `select s.org_id from reminder_settings s where not exists (select 1 from reminder_runs r where r.org_id = s.org_id and r.run_date = ?::date) limit ?`,
        [clock.day, BATCH],
      );
      for (const { org_id } of due) {
        const orgId = Number(org_id);
        await tenantEm(this.deps.orm, orgId)
          .transactional(async (em) => {
            const [done] = await sqlRows(em, "select 1 from reminder_runs where org_id = ? and run_date = ?::date", [orgId, clock.day]);
            if (!done) await this.write({ em, orgId }, clock.day);
          })
          .catch((err: unknown) => this.log.warn('reminder run failed', { orgId, day: clock.day, err: String(err) }));
      }
    }
    return (await this.sendPending()) === BATCH;
  }

  /**
   * E-mails the letters due a try. Each try is counted and committed before the letter is printed,
   * so a letter that takes the process down counts its try and is not tried again until its
   * backoff has passed; after MAX_ATTEMPTS it is failed with the reason (issue 71). A letter that
   * fails never stops the others.
   */
  private async sendPending(): Promise<number> {
    const pending = await sqlRows<{ id: string; org_id: string }>(
      this.deps.orm.em.fork(),
      "select id, org_id from reminder_letters where email_status = 'pending' and (next_attempt_at is null or next_attempt_at <= now()) order by next_attempt_at nulls first, id limit ?",
      [BATCH],
    );
    for (const p of pending) {
      const orgId = Number(p.org_id);
      try {
        const claimed = await tenantEm(this.deps.orm, orgId).transactional(async (em) => {
          const [row] = await sqlRows<{ attempts: number }>(
            em,
            `update reminder_letters set attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ?::int * power(4, attempts))
              where id = ? and email_status = 'pending' and (next_attempt_at is null or next_attempt_at <= now()) returning attempts`,
            [RETRY_BASE_SECONDS, p.id],
          );
          if (!row) return false;
          if (row.attempts > MAX_ATTEMPTS) {
            await sqlRows(em, "update reminder_letters set email_status = 'failed', email_error = coalesce(email_error, '') || ? where id = ?", [`given up after ${MAX_ATTEMPTS} tries`, p.id]);
            return false;
          }
          return true;
        });
        if (!claimed) continue;
        await tenantEm(this.deps.orm, orgId).transactional(async (em) => {
          const [locked] = await sqlRows(em, "select 1 from reminder_letters where id = ? and email_status = 'pending' for update skip locked", [p.id]);
          if (!locked) return;
          const outcome = await this.mail(em, orgId, Number(p.id)).catch((err: unknown) => ({ status: 'retry' as const, error: `${err instanceof Error ? err.message : String(err)}`.slice(0, 2000), messageId: null }));
          if (outcome.status === 'retry') await sqlRows(em, 'update reminder_letters set email_error = ? where id = ?', [`try failed: ${outcome.error}; `, p.id]);
          else await sqlRows(em, 'update reminder_letters set email_status = ?, email_error = ?, message_id = ?, sent_at = now() where id = ?', [outcome.status, outcome.error, outcome.messageId, p.id]);
        });
      } catch (err) {
        this.log.warn('reminder letter not sent; tried again after its backoff', { orgId, letterId: Number(p.id), err: String(err) });
      }
    }
    return pending.length;
  }

  /** The letter printed now, from its lines and the organisation's profile. */
  private async print(em: Parameters<typeof readLetter>[0], orgId: number, id: number): Promise<{ file: Buffer; letter: LetterRow }> {
    const { letter, lines } = await readLetter(em, orgId, id);
    const org = await organisationReplica({ em, orgId });
    return { file: await this.delivery.printer.print(reminderLetterHtml(letter, lines, { name: org?.name, ...(org?.profile ?? {}) })), letter };
  }

  /**
   * The letter's PDF as GET /v1/sales/reminders/{id}/pdf answers it, with its SHA-256: the one kept
   * when it was e-mailed (what the customer got), else printed now and kept for a while in this
   * process (a GET writes nothing; issue 71: a large letter was printed anew, seconds of CPU, on
   * every read).
   */
  async pdf(em: Parameters<typeof readLetter>[0], orgId: number, id: number): Promise<{ file: Buffer; sha256: string; letter: LetterRow }> {
    const [kept] = await sqlRows<{ pdf: Buffer | null; pdf_sha256: string | null }>(em, 'select pdf, pdf_sha256 from reminder_letters where org_id = ? and id = ?', [orgId, id]);
    if (kept?.pdf && kept.pdf_sha256) return { file: kept.pdf, sha256: kept.pdf_sha256, letter: (await readLetter(em, orgId, id)).letter };
    const cached = this.printed.get(`${orgId}:${id}`);
    if (cached) return { ...cached, letter: (await readLetter(em, orgId, id)).letter };
    const printed = await this.print(em, orgId, id);
    const sha256 = createHash('sha256').update(printed.file).digest('hex');
    this.printed.set(`${orgId}:${id}`, { file: printed.file, sha256 });
    // a bounded cache: the oldest printed letter goes first
    while (this.printed.size > PRINTED_KEPT) this.printed.delete(this.printed.keys().next().value!);
    return { ...printed, sha256 };
  }

  private readonly printed = new Map<string, { file: Buffer; sha256: string }>();

  private async mail(em: Parameters<typeof readLetter>[0], orgId: number, id: number) {
    let printed: { file: Buffer; letter: LetterRow };
    try {
      printed = await this.print(em, orgId, id);
      // kept as sent, in the transaction that records the sending
      await sqlRows(em, 'update reminder_letters set pdf = ?, pdf_sha256 = ? where id = ?', [printed.file, createHash('sha256').update(printed.file).digest('hex'), id]);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) throw err;
      return { status: 'failed', error: `the reminder PDF could not be printed: ${String(err)}`.slice(0, 2000), messageId: null };
    }
    const { file, letter } = printed;
    const org = await organisationReplica({ em, orgId });
    const from = typeof org?.profile.email === 'string' && org.profile.email ? org.profile.email : this.delivery.mailFrom;
    const outcome = await this.delivery.mailer.send({
      from,
      to: [letter.to_address!],
      subject: letter.subject,
      text: letter.body,
      attachments: [{ filename: `Reminder-${isoDay(letter.run_date)}-${letter.id}.pdf`, content: file, contentType: 'application/pdf' }],
    });
    return outcome.status === 'failed' ? { status: 'failed', error: outcome.error, messageId: null } : { status: outcome.status, error: null, messageId: outcome.messageId };
  }
}
