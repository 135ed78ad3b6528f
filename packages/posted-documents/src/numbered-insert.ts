import { randomUUID } from 'node:crypto';
import type { EntitySchema } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { NumberPattern } from '@ledgerline/documents';
import { ConflictError, UpstreamError } from '@ledgerline/service-kit';
import { sqlRows } from '@ledgerline/service-kit';
import { isUniqueViolation, nextIds, rowSql, tableShape } from '@ledgerline/service-kit';
import { OUTBOX_COLUMNS, noteEventsWritten, type PreparedEvent } from '@ledgerline/service-kit';

/** Where a posted document's number comes from: the client, or a counter formatted by a mask. */
export type DocumentNumber =
  | { given: string }
  | {
      /** Counter table with `last_value`; `key` names its key columns (its primary or unique key) and values. */
      counter: { table: string; key: Record<string, unknown> };
      pattern: NumberPattern;
    };

export interface NumberedDocumentWrite<T extends object> {
  schema: EntitySchema<T, any>;
  /** The document row, without its number. */
  row: Partial<Record<keyof T, unknown>>;
  /** The property that holds the number. */
  numberProperty: keyof T & string;
  /**
   * JSON properties that carry the number too: their text holds `NUMBER_PLACEHOLDER` (as a JSON
   * string) where the number goes, as the event's does.
   */
  numberIn?: ReadonlyArray<keyof T & string>;
  /** The unique key the number must be free in, e.g. `(org_id, doc_type, no)`. */
  uniqueKey: string;
  /**
   * The `*.posted` event; the number taken replaces `NUMBER_PLACEHOLDER` in its text (its `data.no`).
   * Null for a document whose event the caller records itself once the number is known (a
   * proforma's, whose view is made of more than its row).
   */
  event: PreparedEvent | null;
  number: DocumentNumber;
  /** The 409 for a number already used. */
  duplicate: (no: string) => ConflictError;
}

/**
 * What a document's number is while its event is prepared, before the number is taken: the
 * statement that takes the number puts it in the event's text where this stands. Random per
 * process, so no value a client sends can be mistaken for it.
 */
export const NUMBER_PLACEHOLDER = `number-to-come-${randomUUID()}`;

/** The placeholder as it stands in JSON text: a JSON string. */
const PLACEHOLDER_JSON = JSON.stringify(NUMBER_PLACEHOLDER);

/**
 * SQL putting the number `no` (a text expression) into JSON text (`json`, a text expression) where
 * the placeholder stands. The placeholder is a per-process constant of letters, digits and dashes,
 * so it is written into the statement's text.
 */
const numberIntoJson = (json: string, no: string) => `replace(${json}, '${PLACEHOLDER_JSON}', to_json(${no}::text)::text)`;

/** JSON text written with the placeholder, with the number taken in its place (what the statement wrote). */
export function withDocumentNumber(json: string, no: string): string {
  // a replacer function: a number may hold `$` patterns
  return json.replace(PLACEHOLDER_JSON, () => JSON.stringify(no));
}

/** The 409 for a document number already used (`label`: e.g. `credit note`). */
export function duplicateDocumentNumber(label: string, no: string): ConflictError {
  return new ConflictError(`A ${label} numbered ${no} already exists`, 'duplicate_number');
}

/** The constraint a database error names, as the driver gives it or the ORM wraps it. */
function violatedConstraint(e: unknown): string | undefined {
  const err = e as { constraint?: unknown; cause?: { constraint?: unknown } } | null | undefined;
  const name = err?.constraint ?? err?.cause?.constraint;
  return typeof name === 'string' ? name : undefined;
}

/** The id a new row of `schema` will have, taken from its sequence before the row is written. */
export async function nextDocumentId(em: EntityManager, schema: EntitySchema<any, any>): Promise<number> {
  const [id] = await nextIds(em, schema, 1);
  return id;
}

/** A number already used by an explicitly numbered document is skipped; this many at most. */
const MAX_SKIPPED_NUMBERS = 1000;

/**
 * Writes a posted document in one statement: (the counter upsert and the number it gives,) the
 * document row unless its number is taken (`on conflict do nothing`), and its outbox event only
 * when the document was written, with the number put into the row, its JSON and the event by
 * SQL. The counter row stays locked for that statement and the commit only, so concurrent
 * documents of a series serialise on nothing longer; a rolled-back document gives its number
 * back, so series stay gap-free. Returns the number.
 */
export async function insertNumberedDocument<T extends object>(em: EntityManager, w: NumberedDocumentWrite<T>): Promise<string> {
  try {
    const no = await insertOnce(em, w);
    // written only with the document: once it is, its event proves the transaction's commit
    if (w.event) noteEventsWritten(em, [w.event.id]);
    return no;
  } catch (e) {
    if (isUniqueViolation(e)) {
      // The id, taken from its sequence before the transaction, used already: a sequence hands out
      // values without making them durable, so on a standby just promoted it can stand behind ids
      // the old primary gave out (a request drafted there, written here). Nothing was written, and
      // the request sent again takes a new id: a 503 to retry, not a conflict of the client's.
      if (violatedConstraint(e)?.endsWith('_pkey')) {
        throw new UpstreamError(503, 'database', 'the id taken for the document was in use already (its sequence stood behind, as on a server just promoted); nothing was written, retry');
      }
      // Any other unique key of the document (its uid) colliding is as much a conflict as its number.
      throw w.duplicate('given' in w.number ? w.number.given : '');
    }
    throw e;
  }
}

async function insertOnce<T extends object>(em: EntityManager, w: NumberedDocumentWrite<T>): Promise<string> {
  const shape = tableShape(em, w.schema);
  const expressions: Record<string, string> = { [w.numberProperty]: 'numbered.no' };
  // The number replaces the placeholder in the JSON text before Postgres reads it as JSON: one
  // parse of the document (a `json` column stores the text as it is), where `jsonb_set` over the
  // parsed document built it twice.
  for (const prop of w.numberIn ?? []) expressions[prop] = `${numberIntoJson('?::text', 'numbered.no')}::${shape.columns.get(prop)!.cast}`;
  const row = rowSql(em, w.schema, w.row, expressions);
  const numberColumn = shape.columns.get(w.numberProperty)!.column;
  const eventSql = w.event
    ? `, event as (
    insert into kit_outbox ${OUTBOX_COLUMNS}
    select ?::uuid, ?::text, ?::text, ?::bigint, ${numberIntoJson('?::text', 'doc.no')}, ?::text, ?::text from doc
  )`
    : '';
  const tail = `doc as (
    insert into ${row.table} (${row.columns})
    select ${row.values} from numbered
    on conflict ${w.uniqueKey} do nothing
    returning ${numberColumn} as no
  )${eventSql}
  select numbered.no, exists (select 1 from doc) as inserted from numbered`;
  const eventParams = w.event ? [w.event.id, w.event.subject, w.event.type, w.event.orgId, w.event.json, w.event.traceparent, w.event.resource] : [];

  if ('given' in w.number) {
    const [r] = await sqlRows<{ no: string; inserted: boolean }>(
      em,
      `with numbered as (select ?::text as no), ${tail}`,
      [w.number.given, ...row.params, ...eventParams],
      { prepared: true },
    );
    if (!r.inserted) throw w.duplicate(w.number.given);
    return r.no;
  }

  const { counter, pattern } = w.number;
  const keys = Object.keys(counter.key);
  const sql = `with counter as (
    insert into ${counter.table} (${keys.join(', ')}, last_value) values (${keys.map(() => '?').join(', ')}, 1)
    on conflict (${keys.join(', ')}) do update set last_value = ${counter.table}.last_value + 1
    returning last_value
  ), numbered as (
    select ?::text || lpad(last_value::text, greatest(?::int, length(last_value::text)), '0') || ?::text as no from counter
  ), ${tail}`;
  const params = [...Object.values(counter.key), pattern.prefix, pattern.width, pattern.suffix, ...row.params, ...eventParams];
  for (let attempt = 0; attempt < MAX_SKIPPED_NUMBERS; attempt++) {
    const [r] = await sqlRows<{ no: string; inserted: boolean }>(em, sql, params, { prepared: true });
    if (r.inserted) return r.no;
  }
  throw new ConflictError(`The numbering series ${pattern.prefix}…${pattern.suffix} has no free number`, 'numbering_exhausted');
}
