import { z } from 'zod';
import {
  id,
  int64,
  isoDateTime,
} from './common.js';

/* Invoice compliance records and the evaluation request (architecture §8). */

// --- compliance (POST /v1/sales/invoices/compliance/evaluate, architecture §8) -------------------------------------------------

export const COMPLIANCE_STATUSES = ['pending', 'evaluated', 'blocked'] as const;
export const REPORTING_METHODS = ['no_reporting', 'reporting_by_delivery'] as const;
export const DELIVERY_ELIGIBILITIES = ['eligible', 'eligible_via_required_channel'] as const;
export const REQUIRED_ACTIONS = ['none', 'send_via_peppol'] as const;

export const allowedActionsSchema = z.object({
  send_email: z.boolean(),
  download_pdf: z.boolean(),
  send_via_peppol: z.boolean(),
  submit_to_tax_authority: z.boolean(),
});

export const complianceRecordSchema = z
  .object({
    invoice_id: int64,
    compliance: z.object({
      status: z.enum(COMPLIANCE_STATUSES),
      reporting_method: z.enum(REPORTING_METHODS).nullable(),
      delivery_eligibility: z.enum(DELIVERY_ELIGIBILITIES).nullable(),
      required_action: z.enum(REQUIRED_ACTIONS).nullable(),
      allowed_actions: allowedActionsSchema.nullable(),
      evaluated_at: isoDateTime.nullable(),
      blocking_reason: z
        .string()
        .nullable()
        .describe('Why the invoice is blocked: invoice_not_found, national_platform_required:<platform> or a Peppol rule id'),
    }),
  })
  .meta({ id: 'ComplianceRecord', description: 'Invoice compliance record' });
export type ComplianceRecord = z.infer<typeof complianceRecordSchema>;

/**
 * Body of POST /sales/invoices/compliance/evaluate: the ids (int64) of the invoices to
 * evaluate, 1 to 1000 of them. An id unknown in the organisation yields a blocked record with
 * `blocking_reason: invoice_not_found`, not a failed batch.
 */
export const complianceEvaluateBodySchema = z
  .array(id)
  .min(1)
  .max(1000)
  .meta({ id: 'ComplianceEvaluateRequest', description: 'Invoice ids (integers, int64) to evaluate: 1 to 1000 entries' });
export type ComplianceEvaluateBody = z.infer<typeof complianceEvaluateBodySchema>;
export const complianceEvaluateResultSchema = z.array(complianceRecordSchema);
