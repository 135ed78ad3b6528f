import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { transactionTypeSchema } from '@ledgerline/contracts/common';
import { BusinessRuleError, parseOrThrow, parseRequest, refuseUnknownFields } from '@ledgerline/service-kit';
import { PurchaseDocumentSchema, type PurchaseKind } from '../db/entities.js';
import type { PurchaseDocumentKind, PurchaseRequestSchema } from './kind.js';

/** Derived or identifying fields a request may carry but that never come from the client. */
export const NOT_INPUT = [
  'id', 'uid', 'created_at', 'edited_at', 'is_locked', 'total_amount', 'subtotal_amount', 'amount_paid',
  'amount_due', 'payment_status', 'overdue_days', 'taxes',
] as const;
/** Fields a copy (`copy_from_id`) does not take over from its source. */
const NOT_COPIED = [...NOT_INPUT, 'no', 'copy_from_id', 'credited_doc_no', 'prepaid_amount', 'rounding_amount'] as const;

export function omit(obj: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!keys.includes(k) && v !== undefined) out[k] = v;
  return out;
}

/**
 * The request of a new purchase document, parsed by its kind's schema. With `copy_from_id` the
 * new document starts from the copied document's accepted input, and every field the body
 * carries overrides it; `type` must be in the body itself either way (the interface requires it in the
 * request). This is why purchase writes read the raw body: the copy is merged before parsing.
 */
export async function readPurchaseRequest<K extends PurchaseKind, S extends PurchaseRequestSchema>(
  em: EntityManager,
  kind: PurchaseDocumentKind<K, S>,
  raw: unknown,
): Promise<z.output<S>> {
  const schema = kind.requestSchema;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return parseOrThrow(schema, raw) as z.output<S>;
  const body = raw as Record<string, unknown>;
  if (body.copy_from_id === undefined || body.copy_from_id === null) return parseRequest(schema, body, 'request body', kind.responseSchema) as z.output<S>;
  // the body's own fields are checked before the copy is merged in (the copy holds known fields only)
  refuseUnknownFields(schema, body, 'request body', kind.responseSchema);

  const head = parseOrThrow(z.object({ type: transactionTypeSchema, copy_from_id: z.int().min(1) }), body);
  const source = await em.findOne(PurchaseDocumentSchema, { id: head.copy_from_id });
  if (!source) {
    throw new BusinessRuleError(`Purchase document ${head.copy_from_id} to copy from does not exist`, 'copy_source_not_found', [
      { path: 'copy_from_id', message: 'no such purchase document', code: 'copy_source_not_found' },
    ]);
  }
  return parseOrThrow(schema, { ...omit(source.input, NOT_COPIED), ...omit(body, []) }) as z.output<S>;
}
