import type { TenantScope } from '@ledgerline/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { documentFindBatchRequestSchema, documentFindRequestSchema, type DocumentFindAnswer, type MatchedBy } from '@ledgerline/contracts';
import { sqlRows } from '@ledgerline/service-kit';
import { dec } from '@ledgerline/service-kit';

/*
 * The one open document a bank movement pays (issue 17), for the services that own documents:
 * sales (invoices, money in) and purchase (vendor bills, money out). Tried in order, each among
 * the organisation's documents of the kind, in the movement's currency, with something still due:
 *   1. the variable symbol, leading zeros aside;
 *   2. the payment reference, as written (case and outer spaces aside);
 *   3. the amount due, among the documents that name the counterparty account (a vendor bill's
 *      bank account), else among those of the contacts the account paid or was paid by before
 *      when there are any, else among all.
 * Two documents that fit one clue are told apart by the amount; when still more than one fits,
 * the clue matches nothing and the next is tried. Null when nothing fits alone.
 */

export interface OpenDocumentTable {
  /** The table (`sales_documents`). */
  table: string;
  /** The condition that selects the kind of document a movement pays (`doc_type = 'sales_invoice'`). */
  kind: string;
  /** SQL giving a document's variable symbol without leading zeros. */
  variableSymbol: string;
  /** SQL giving a document's payment reference. */
  paymentReference: string;
  /** SQL giving the id of the document's contact (customer or vendor). */
  contactId: string;
  /** SQL giving the account the document is paid to, when documents name it (a vendor bill's). */
  counterpartyAccount?: string;
}

const compactAccount = (sql: string) => `upper(regexp_replace(coalesce(${sql}, ''), '\\s', '', 'g'))`;

/**
 * The statement that reads the candidates of one clue (parameters: organisation, currency, then
 * the clue's). Its `amount_due > 0` and the order by id match each table's index of open
 * documents (decision 130), so it reads the organisation's open documents of that currency only,
 * however many it ever issued.
 */
export function openDocumentCandidatesSql(t: OpenDocumentTable, clue: string): string {
  return `select id, amount_due::text from ${t.table} where org_id = ? and ${t.kind} and amount_due > 0 and currency = ? and ${clue} order by id limit 20`;
}

export async function findOpenDocument(scope: TenantScope, t: OpenDocumentTable, raw: unknown): Promise<{ id: number; matchedBy: MatchedBy } | null> {
  const { em, orgId } = scope;
  const req = documentFindRequestSchema.parse(raw);
  const candidates = async (clue: string, params: unknown[]) =>
    sqlRows<{ id: string; amount_due: string }>(em, openDocumentCandidatesSql(t, clue), [orgId, req.currency, ...params]);
  const single = (rows: Array<{ id: string; amount_due: string }>) => {
    if (rows.length === 1) return Number(rows[0].id);
    const exact = rows.filter((r) => dec(r.amount_due).eq(dec(req.amount)));
    return exact.length === 1 ? Number(exact[0].id) : null;
  };
  const tries: Array<[MatchedBy, () => Promise<number | null>]> = [
    ['variable_symbol', async () => (req.variable_symbol ? single(await candidates(`${t.variableSymbol} = ltrim(?, '0')`, [req.variable_symbol])) : null)],
    ['payment_reference', async () => (req.payment_reference ? single(await candidates(`upper(trim(${t.paymentReference})) = upper(trim(?))`, [req.payment_reference])) : null)],
    [
      'amount',
      async () => {
        const contacts = req.contact_ids ?? [];
        if (t.counterpartyAccount && req.counterparty_account) {
          const named = await candidates(`amount_due = ?::numeric and ${compactAccount(t.counterpartyAccount)} = ${compactAccount('?')}`, [req.amount, req.counterparty_account]);
          if (named.length === 1) return Number(named[0].id);
        }
        if (contacts.length > 0) {
          const theirs = await candidates(`amount_due = ?::numeric and ${t.contactId} = any(?::bigint[])`, [req.amount, `{${contacts.join(',')}}`]);
          if (theirs.length > 0) return theirs.length === 1 ? Number(theirs[0].id) : null;
        }
        const all = await candidates('amount_due = ?::numeric', [req.amount]);
        return all.length === 1 ? Number(all[0].id) : null;
      },
    ],
  ];
  for (const [matchedBy, attempt] of tries) {
    const id = await attempt();
    if (id !== null) return { id, matchedBy };
  }
  return null;
}

/**
 * A responder's answer to a batch of movements: for each, the one open document it pays (its
 * owner's lookup answer and what the match rests on) or `found: false` of `type`.
 */
export async function answerDocumentFinds(
  em: EntityManager,
  orgId: number,
  t: OpenDocumentTable,
  raw: unknown,
  type: string,
  lookup: (id: number) => Promise<Omit<DocumentFindAnswer, 'matched_by'>>,
): Promise<{ answers: DocumentFindAnswer[] }> {
  const { movements } = documentFindBatchRequestSchema.parse(raw);
  const answers: DocumentFindAnswer[] = [];
  for (const movement of movements) {
    const found = await findOpenDocument({ em, orgId }, t, movement);
    answers.push(
      found
        ? { ...(await lookup(found.id)), matched_by: found.matchedBy }
        : { found: false, type, id: null, no: null, total_amount: null, amount_due: null, currency: null, contact: null, matched_by: null },
    );
  }
  return { answers };
}
