import type { EntityManager } from '@mikro-orm/postgresql';
import { assertCreditHeadroom } from '@ledgerline/documents';
import { BusinessRuleError } from '@ledgerline/service-kit';
import { sqlRows } from '@ledgerline/service-kit';

/** What a credit (credit note, vendor credit) checks of the document it credits. */
export interface CreditedDocument {
  id: number;
  no: string;
  currency: string;
  totalAmount: string;
}

/**
 * How one kind of credit relates to the documents it may credit: the differences between services,
 * as data. The table and columns are the service's own, written into one statement (never
 * anything a request sent).
 */
export interface CreditRule {
  /** The table of documents: `id`, `org_id`, `no`, `currency`, `total_amount`, `credited_doc_id`. */
  table: string;
  /** The column telling documents' kinds apart, the kind a credit may credit, and the credits' own kind. */
  kindColumn: string;
  credited: string;
  credit: string;
  /** SQL of the credited document's party, over the row `d` (e.g. `d.body->'customer'`). */
  party: string;
  /** Whether a stored document's party and a request's are the same one. */
  sameParty: (a: Record<string, unknown> | null | undefined, b: Record<string, unknown> | null | undefined) => boolean;
  /** Words of the messages: `credit note` credits an `invoice`. */
  words: { credit: string; credited: string; creditsPlural: string };
  /** The 422s a service has always answered (kept per service: clients match on them). */
  notFound: (id: number) => BusinessRuleError;
  otherParty: () => BusinessRuleError;
  /** `code` of the headroom check (credits above the credited total). */
  exceedsCode: string;
  /**
   * Where a credit naming its credited document by number alone (`credited_doc_no`) finds it: the
   * column holding that number, and whether it is unique only per party (a vendor's own invoice
   * number). Our own number (`no`, unique in the organisation) unless said.
   */
  numberedBy?: { column: string; perParty: boolean };
}

export interface CreditRequest {
  orgId: number;
  creditedId: number;
  party: Record<string, unknown> | null | undefined;
  currency: string;
  total: string;
  precision: number;
}

/**
 * The credited document, locked until commit, with its party and the totals of its credits so
 * far; values: the credit kind, organisation, credited id, credited kind. Exported for the test
 * that reads its plan.
 */
export function creditedDocumentStatement(rule: CreditRule): string {
  return `select d.id, d.no, d.currency, d.total_amount::text as total_amount, ${rule.party} as party,
            array(select c.total_amount::text from ${rule.table} c
                   where c.org_id = d.org_id and c.credited_doc_id = d.id and c.${rule.kindColumn} = ?) as earlier
       from ${rule.table} d
      where d.org_id = ? and d.id = ? and d.${rule.kindColumn} = ?
        for update of d`;
}

/** Documents of one number looked at, at most, when the number is unique only per party. */
const SAME_NUMBER_LIMIT = 20;

/**
 * The id of the document a credit may credit that is numbered `no` in the organisation (of the
 * credit's `party` where numbers are the parties' own), or null: a credit naming its credited
 * document by number alone is checked as one naming its id when the number is one document's
 * here; a number of none (a document issued before the books moved here), or of several of one
 * party's, stays a reference.
 */
async function creditedIdByNumber(em: EntityManager, rule: CreditRule, orgId: number, no: string, party: Record<string, unknown> | null | undefined): Promise<number | null> {
  const by = rule.numberedBy ?? { column: 'no', perParty: false };
  const rows = await sqlRows<{ id: string | number; party: Record<string, unknown> | null }>(
    em,
    `select d.id, ${rule.party} as party from ${rule.table} d where d.org_id = ? and d.${rule.kindColumn} = ? and d.${by.column} = ? order by d.id limit ${SAME_NUMBER_LIMIT + 1}`,
    [orgId, rule.credited, no],
    { prepared: true },
  );
  const own = by.perParty ? rows.filter((r) => rule.sameParty(r.party, party)) : rows;
  return own.length === 1 && rows.length <= SAME_NUMBER_LIMIT ? Number(own[0].id) : null;
}

/** The id of the document a credit credits: the one it names, else the one its number alone names (`creditedIdByNumber`), else null. */
export async function creditedIdOf(
  em: EntityManager,
  rule: CreditRule,
  orgId: number,
  named: { id: number | null | undefined; no: string | null },
  party: Record<string, unknown> | null | undefined,
): Promise<number | null> {
  return named.id ?? (named.no ? creditedIdByNumber(em, rule, orgId, named.no, party) : null);
}

/**
 * Checks a credit against the document it credits (same organisation, party and currency; its
 * credits may not exceed its total) and returns that document. Its row is locked until commit,
 * so concurrent credits of one document are judged one after another. One statement reads the
 * document and its earlier credits; through the ORM, hydrating the whole document (its body
 * included) and then its credits cost about 4 ms of CPU per credit (decision 113).
 */
export async function checkCreditedDocument(em: EntityManager, rule: CreditRule, req: CreditRequest): Promise<CreditedDocument> {
  const [row] = await sqlRows<{ id: string | number; no: string; currency: string; total_amount: string; party: Record<string, unknown> | null; earlier: string[] }>(
    em,
    creditedDocumentStatement(rule),
    [rule.credit, req.orgId, req.creditedId, rule.credited],
    { prepared: true },
  );
  if (!row) throw rule.notFound(req.creditedId);
  if (!rule.sameParty(row.party, req.party)) throw rule.otherParty();
  const currency = row.currency.trim();
  if (currency !== req.currency) {
    throw new BusinessRuleError(`A ${rule.words.credit} must be in the currency of the ${rule.words.credited} it credits`, 'currency_mismatch', [
      { path: 'currency', message: `the credited ${rule.words.credited} is in ${currency}`, code: 'currency_mismatch' },
    ]);
  }
  assertCreditHeadroom({
    creditedTotal: row.total_amount,
    earlierCredits: row.earlier,
    credit: req.total,
    precision: req.precision,
    creditsOf: `${rule.words.creditsPlural} of ${rule.words.credited} ${row.no}`,
    document: rule.words.credited,
    code: rule.exceedsCode,
  });
  return { id: Number(row.id), no: row.no, currency, totalAmount: row.total_amount };
}
