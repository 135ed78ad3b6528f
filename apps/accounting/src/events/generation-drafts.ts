import { parseEnvelope, type OrganisationReplica } from '@ledgerline/service-kit';
import { eventType, type CloudEvent } from '@ledgerline/contracts';
import { stagedEntry, type LedgerShapes } from '../domain/ledger-store.js';
import type { SourceType } from '../domain/posting-map.js';
import { draftStandalone, type ApplyOptions } from './ledger-events.js';

/*
 * Drafting a ledger generation's postings (decision 245): the same work in the rebuild's thread
 * or in a drafting thread, on plain data only — the raw messages in, each posting's rows out as
 * JSON text ready for the staging statement — so a thread needs no database and no ORM.
 */

/** What drafting needs besides the messages: the organisation, its options and the ledger tables' shapes. */
export interface DraftSetting {
  orgId: number;
  opts: ApplyOptions;
  organisation: OrganisationReplica | null;
  shapes: LedgerShapes;
}

/** A message of the organisation's streams as read: its place, its source type, the subject it came on (tenant token removed) and its bytes. */
export interface RawMessage {
  seq: number;
  type: SourceType;
  subject: string;
  data: Uint8Array;
}

/** What became of a message: its posting staged as JSON text, an event that cannot post, or not an event the ledger reads. */
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

/** JSON text of an array without its brackets (`[]` → ``), for joining several into one. */
const inner = (items: unknown[]) => JSON.stringify(items).slice(1, -1);

/**
 * Drafts messages whose postings read nothing from the ledger (`draftStandalone`), in order.
 * A drafted posting's key (`<source type>:<id>`) tells the rebuild whether it is its document's
 * first; its rows name their header by uid and carry the organisation and the message's place.
 */
export function draftMessages(setting: DraftSetting, messages: RawMessage[]): DraftResult[] {
  return messages.map((m): DraftResult => {
    const event = organisationEvent(m.data, m.subject, setting.orgId);
    if (!event) return { seq: m.seq, kind: 'foreign' };
    try {
      const entry = draftStandalone(m.type, event, setting.opts, setting.organisation);
      const staged = stagedEntry(setting.shapes, setting.orgId, entry, event.id);
      const uid = staged.header.uid;
      return {
        seq: m.seq,
        kind: 'drafted',
        eventId: event.id,
        key: `${entry.source.type}:${entry.source.id}`,
        header: JSON.stringify({ ...staged.header, org_id: setting.orgId, seq: m.seq }),
        rows: inner(staged.rows.map((r) => ({ ...r, org_id: setting.orgId, tx_uid: uid }))),
        taxes: inner(staged.taxes.map((x) => ({ ...x, org_id: setting.orgId, tx_uid: uid }))),
      };
    } catch (err) {
      return { seq: m.seq, kind: 'unpostable', eventId: event.id, reason: String(err) };
    }
  });
}
