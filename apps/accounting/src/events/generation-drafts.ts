import { parseEnvelope, type OrganisationReplica } from '@ledgerline/service-kit';
import { eventType, type CloudEvent } from '@ledgerline/contracts';
import { stagedEntry, type LedgerShapes } from '../domain/ledger-store.js';
import { copyLine, copyValue } from '../domain/copy-text.js';
import type { StagedColumns } from '../domain/ledger-generation.js';
import type { SourceType } from '../domain/posting-map.js';
import { draftStandalone, type ApplyOptions } from './ledger-events.js';

/*
 * Drafting a ledger generation's postings (decision 245): the same work in the rebuild's thread
 * or in a drafting thread, on plain data only — the raw messages in, each posting's rows out as
 * COPY text lines ready for staging (decision 256) — so a thread needs no database and no ORM.
 */

/** What drafting needs besides the messages: the organisation, its options, the ledger tables' shapes and the staged columns' order. */
export interface DraftSetting {
  orgId: number;
  opts: ApplyOptions;
  organisation: OrganisationReplica | null;
  shapes: LedgerShapes;
  columns: StagedColumns;
}

/** A message of the organisation's streams as read: its place, its source type, the subject it came on (tenant token removed) and its bytes. */
export interface RawMessage {
  seq: number;
  type: SourceType;
  subject: string;
  data: Uint8Array;
}

/** What became of a message: its posting as COPY lines (header, rows, tax rows; each line ends with its newline), an event that cannot post, or not an event the ledger reads. */
export type DraftResult =
  | { seq: number; kind: 'drafted'; eventId: string; key: string; header: string; rows: string; taxes: string }
  | { seq: number; kind: 'unpostable'; eventId: string; reason: string }
  | { seq: number; kind: 'foreign' };

/**
 * The organisation's event a message carries, in the version the ledger reads (another version
 * published beside it carries the same fact), or null.
 */
export function organisationEvent(data: Uint8Array, subject: string, orgId: number): CloudEvent | null {
  let event: CloudEvent;
  try {
    event = parseEnvelope(data);
  } catch {
    return null;
  }
  return event.orgid === String(orgId) && event.type === eventType(subject) ? event : null;
}

/**
 * Drafts messages whose postings read nothing from the ledger (`draftStandalone`), in order.
 * A drafted posting's key (`<source type>:<id>`) tells the rebuild whether it is its document's
 * first; its rows name their header by uid and carry the organisation and the message's place.
 */
export function draftMessages(setting: DraftSetting, messages: RawMessage[]): DraftResult[] {
  const { columns } = setting;
  return messages.map((m): DraftResult => {
    const event = organisationEvent(m.data, m.subject, setting.orgId);
    if (!event) return { seq: m.seq, kind: 'foreign' };
    try {
      const entry = draftStandalone(m.type, event, setting.opts, setting.organisation);
      const staged = stagedEntry(setting.shapes, setting.orgId, entry, event.id);
      // what ends each of its rows' lines: the organisation and the header's uid
      const placed = `\t${setting.orgId}\t${copyValue(staged.header.uid)}`;
      return {
        seq: m.seq,
        kind: 'drafted',
        eventId: event.id,
        key: `${entry.source.type}:${entry.source.id}`,
        header: copyLine(columns.tx, staged.header, `\t${setting.orgId}\t${m.seq}`),
        rows: staged.rows.map((r) => copyLine(columns.rows, r, placed)).join(''),
        taxes: staged.taxes.map((x) => copyLine(columns.tax, x, placed)).join(''),
      };
    } catch (err) {
      return { seq: m.seq, kind: 'unpostable', eventId: event.id, reason: String(err) };
    }
  });
}
