import { EntitySchema } from '@mikro-orm/core';
import type { AllowedActions, ComplianceStatus } from '@ledgerline/compliance';

/** One compliance evaluation of one invoice (spec §2.8 plus the matched rule and failed checks). */
export interface ComplianceRecordRow {
  id: number;
  orgId: number;
  invoiceId: number;
  status: ComplianceStatus;
  reportingMethod?: string | null;
  deliveryEligibility?: string | null;
  requiredAction?: string | null;
  allowedActions?: AllowedActions | null;
  blockingReason?: string | null;
  ruleId?: string | null;
  failedChecks: string[];
  evaluatedAt: Date;
  createdAt: Date;
}

export const ComplianceRecordSchema = new EntitySchema<ComplianceRecordRow>({
  name: 'ComplianceRecord',
  tableName: 'compliance_records',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    invoiceId: { type: 'number', fieldName: 'invoice_id' },
    status: { type: 'string' },
    reportingMethod: { type: 'string', nullable: true, fieldName: 'reporting_method' },
    deliveryEligibility: { type: 'string', nullable: true, fieldName: 'delivery_eligibility' },
    requiredAction: { type: 'string', nullable: true, fieldName: 'required_action' },
    allowedActions: { type: 'json', nullable: true, fieldName: 'allowed_actions' },
    blockingReason: { type: 'string', nullable: true, fieldName: 'blocking_reason' },
    ruleId: { type: 'string', nullable: true, fieldName: 'rule_id' },
    failedChecks: { type: 'json', fieldName: 'failed_checks' },
    evaluatedAt: { type: 'Date', fieldName: 'evaluated_at' },
    createdAt: { type: 'Date', onCreate: () => new Date(), fieldName: 'created_at' },
  },
});

export const complianceEntities = [ComplianceRecordSchema];
