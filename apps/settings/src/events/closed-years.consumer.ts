import { SUBJECTS, accountingJournalEntryPostedEventSchema } from '@ledgerline/contracts';
import { PoisonMessageError, type ConsumerDefinition } from '@ledgerline/service-kit';
import { recordClosingEntry } from '../domain/closed-years.js';

/** Keeps settings' record of closed years from accounting's journal entries (decision 173). */
export function closedYearsConsumer(): ConsumerDefinition {
  return {
    name: 'settings-accounting-journal-entry-posted',
    subject: SUBJECTS.accountingJournalEntryPosted,
    handle: async (ctx, event) => {
      if (ctx.orgId === null) return;
      const parsed = accountingJournalEntryPostedEventSchema.safeParse(event.data);
      if (!parsed.success) throw new PoisonMessageError(`unusable journal entry: ${parsed.error.message}`);
      await recordClosingEntry({ em: ctx.em, orgId: ctx.orgId }, parsed.data);
    },
  };
}
