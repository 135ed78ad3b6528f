import { defineEntity, p } from '@mikro-orm/core';

/*
 * The allocations' table of a service that applies credits to its documents (sales: credit notes
 * to invoices; purchase: vendor credits to bills; decision 148), declared once for both: the
 * entity, and the column type a migration gives its amount. `allocateCredit` reads and writes it.
 */

/** The amount's column: the documents' own money columns' type, so any amount due fits. */
export const CREDIT_ALLOCATION_AMOUNT = 'numeric(18,4)';

export function creditAllocationEntity(tableName: string) {
  return defineEntity({
    name: 'CreditAllocation',
    tableName,
    properties: {
      id: p.integer().primary().autoincrement(),
      orgId: p.integer().fieldName('org_id'),
      creditId: p.integer(),
      targetId: p.integer(),
      amount: p.decimal().columnType(CREDIT_ALLOCATION_AMOUNT),
      currency: p.string().length(3),
      date: p.date(),
      createdAt: p.datetime(),
      removedAt: p.datetime().nullable(),
      legalCurrency: p.string().nullable(),
      creditAmountLeg: p.decimal().columnType('numeric(18,2)').nullable(),
      targetAmountLeg: p.decimal().columnType('numeric(18,2)').nullable(),
      fxResult: p.decimal().columnType('numeric(18,2)').nullable(),
    },
  });
}

/** The DDL of the table beside `documents` (what a service adding credits runs in its migration). */
export function creditAllocationTableSql(table: string, documents: string): string {
  return `create table ${table} (
  id bigserial primary key,
  org_id bigint not null,
  credit_id bigint not null references ${documents}(id),
  target_id bigint not null references ${documents}(id),
  amount ${CREDIT_ALLOCATION_AMOUNT} not null check (amount > 0),
  currency char(3) not null,
  date date not null,
  created_at timestamptz not null,
  removed_at timestamptz,
  legal_currency text,
  credit_amount_leg numeric(18,2),
  target_amount_leg numeric(18,2),
  fx_result numeric(18,2)
);
create index ${table}_credit on ${table} (org_id, credit_id, id);
create index ${table}_target on ${table} (org_id, target_id);`;
}

/**
 * The columns a set-off of documents at different rates keeps (decision 207): the legal value
 * each document is settled at and the result, null at one rate. What a migration adds to a table
 * made before them (the DDL above has them).
 */
export function creditAllocationExchangeColumnsSql(table: string): string {
  return `alter table ${table} add column legal_currency text, add column credit_amount_leg numeric(18,2),
  add column target_amount_leg numeric(18,2), add column fx_result numeric(18,2);`;
}
