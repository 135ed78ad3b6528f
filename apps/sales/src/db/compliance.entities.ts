import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { AllowedActions, ComplianceStatus } from '@ledgerline/compliance';

export const ComplianceRecordSchema = defineEntity({
  name: 'ComplianceRecord',
  tableName: 'compliance_records',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    invoiceId: p.integer().fieldName('invoice_id'),
    status: p.string().$type<ComplianceStatus>(),
    reportingMethod: p.string().nullable().fieldName('reporting_method'),
    deliveryEligibility: p.string().nullable().fieldName('delivery_eligibility'),
    requiredAction: p.string().nullable().fieldName('required_action'),
    allowedActions: p.json<AllowedActions>().nullable().fieldName('allowed_actions'),
    blockingReason: p.string().nullable().fieldName('blocking_reason'),
    ruleId: p.string().nullable().fieldName('rule_id'),
    failedChecks: p.json<string[]>().fieldName('failed_checks'),
    evaluatedAt: p.datetime().fieldName('evaluated_at'),
    createdAt: p.datetime().onCreate(() => new Date()).fieldName('created_at'),
  },
});
/** One compliance evaluation of one invoice (the `ComplianceRecord` answered, plus the matched rule and failed checks). */
export type ComplianceRecordRow = InferEntity<typeof ComplianceRecordSchema>;

export const complianceEntities = [ComplianceRecordSchema];
