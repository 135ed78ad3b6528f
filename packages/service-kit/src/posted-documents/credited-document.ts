import type { EntitySchema, FilterQuery } from '@mikro-orm/core';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { assertCreditHeadroom } from '@ledgerline/documents';
import { BusinessRuleError } from '../errors.js';

/** What a credit (credit note, vendor credit) checks of the document it credits. */
export interface CreditableDocument {
  id: number;
  no: string;
  currency: string;
  totalAmount: string;
}

/** How one kind of credit relates to the documents it may credit: the differences between services, as data. */
export interface CreditRule<D extends CreditableDocument> {
  documents: EntitySchema<D, any>;
  /** Selects the documents a credit may credit, e.g. `{ docType: 'sales_invoice' }`. */
  credited: FilterQuery<D>;
  /** Selects the credits of a credited document `id`. */
  creditsOf: (id: number) => FilterQuery<D>;
  /** The party of a stored document and whether a request's party is the same one. */
  partyOf: (doc: D) => Record<string, unknown> | null | undefined;
  sameParty: (a: Record<string, unknown> | null | undefined, b: Record<string, unknown> | null | undefined) => boolean;
  /** Words of the messages: `credit note` credits an `invoice`. */
  words: { credit: string; credited: string; creditsPlural: string };
  /** The 422s a service has always answered (kept per service: clients match on them). */
  notFound: (id: number) => BusinessRuleError;
  otherParty: () => BusinessRuleError;
  /** `code` of the headroom check (credits above the credited total). */
  exceedsCode: string;
}

export interface CreditRequest {
  creditedId: number;
  party: Record<string, unknown> | null | undefined;
  currency: string;
  total: string;
  precision: number;
}

/**
 * Checks a credit against the document it credits (same organisation, party and currency; its
 * credits may not exceed its total) and returns that document. Its row is locked until commit,
 * so concurrent credits of one document are judged one after another.
 */
export async function checkCreditedDocument<D extends CreditableDocument>(em: EntityManager, rule: CreditRule<D>, req: CreditRequest): Promise<D> {
  const credited = await em.findOne(rule.documents, { ...(rule.credited as object), id: req.creditedId } as FilterQuery<D>, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!credited) throw rule.notFound(req.creditedId);
  if (!rule.sameParty(rule.partyOf(credited), req.party)) throw rule.otherParty();
  const currency = credited.currency.trim();
  if (currency !== req.currency) {
    throw new BusinessRuleError(`A ${rule.words.credit} must be in the currency of the ${rule.words.credited} it credits`, 'currency_mismatch', [
      { path: 'currency', message: `the credited ${rule.words.credited} is in ${currency}`, code: 'currency_mismatch' },
    ]);
  }
  const earlier = await em.find(rule.documents, rule.creditsOf(credited.id), { fields: ['totalAmount'] as never });
  assertCreditHeadroom({
    creditedTotal: credited.totalAmount,
    earlierCredits: earlier.map((c) => c.totalAmount),
    credit: req.total,
    precision: req.precision,
    creditsOf: `${rule.words.creditsPlural} of ${rule.words.credited} ${credited.no}`,
    document: rule.words.credited,
    code: rule.exceedsCode,
  });
  return credited;
}
