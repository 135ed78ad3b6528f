/** A row of `kit_organisations` as the services read it (the table is the kit's; see replica.ts). */
export interface OrganisationReplica {
  orgId: number;
  name: string | null;
  /** ISO 3166 alpha-2, upper case; null until a profile naming it arrives. */
  country: string | null;
  legalCurrency: string;
  isVatPayer: boolean;
  /** The whole profile as settings last published it (the issuer snapshot source). */
  profile: Record<string, unknown>;
  sourceTime: Date;
}

/** The columns `replicaOfRow` reads, for statements that fetch the replica beside other work. */
export const REPLICA_COLUMNS = 'name, country, legal_currency, is_vat_payer, profile, source_time';

/**
 * A statement that runs `work` (a data-modifying CTE named `done`), answering `answer` (read from
 * `done`) beside the organisation's replica row, bound to the statement's last value: every column
 * null and `known` false when there is none. One round trip instead of a read of its own.
 */
export function besideReplica(work: string, answer: string): string {
  return `with done as (${work})
  select ${answer}, o.org_id is not null as known, ${REPLICA_COLUMNS.split(', ').map((c) => `o.${c}`).join(', ')}
    from (select 1) one left join kit_organisations o on o.org_id = ?`;
}

export interface ReplicaRow {
  name: string | null;
  country: string | null;
  legal_currency: string;
  is_vat_payer: boolean;
  profile: Record<string, unknown>;
  /** A Date, or Postgres's text form (the ORM's driver leaves timestamps as text). */
  source_time: Date | string;
}

export function replicaOfRow(orgId: number, row: ReplicaRow): OrganisationReplica {
  return {
    orgId,
    name: row.name,
    country: row.country,
    legalCurrency: row.legal_currency,
    isVatPayer: row.is_vat_payer,
    profile: row.profile,
    sourceTime: row.source_time instanceof Date ? row.source_time : timestampOf(row.source_time),
  };
}

/** `2026-11-01 10:00:00.5+00` (Postgres's text form of a timestamptz) as a Date. */
function timestampOf(text: string): Date {
  return new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
}
