import { EntitySchema } from '@mikro-orm/core';

/**
 * Local replica of the organisation's templates, fed by `settings.template.saved`: sales renders
 * with it and never calls settings to render.
 */
export interface TemplateReplica {
  id: number;
  orgId: number;
  /** The template's id in settings. */
  templateId: number;
  code?: string | null;
  /** The full template as announced (spec §2.9). */
  template: Record<string, unknown>;
  sourceTime: Date;
  updatedAt: Date;
}

export const TemplateReplicaSchema = new EntitySchema<TemplateReplica>({
  name: 'TemplateReplica',
  tableName: 'template_replicas',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    templateId: { type: 'number' },
    code: { type: 'string', nullable: true },
    template: { type: 'json' },
    sourceTime: { type: 'Date' },
    updatedAt: { type: 'Date', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});

export type EmailStatus = 'sent' | 'written' | 'failed';

/** One attempt to send a document by e-mail (spec §2.10), with its outcome. */
export interface EmailRecord {
  id: number;
  orgId: number;
  documentType: 'sales_invoice' | 'sales_credit_note';
  documentId: number;
  documentNo?: string | null;
  fromAddress?: string | null;
  replyTo?: string | null;
  toAddress?: string | null;
  toCc?: string | null;
  toBcc?: string | null;
  subject?: string | null;
  body?: string | null;
  includeAttachment: boolean;
  /** File names and sizes of what was attached (the content is not kept). */
  attachments: Array<{ id: number; file_name: string; size: number }>;
  status: EmailStatus;
  error?: string | null;
  messageId?: string | null;
  createdAt: Date;
}

export const EmailRecordSchema = new EntitySchema<EmailRecord>({
  name: 'EmailRecord',
  tableName: 'email_records',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    documentType: { type: 'string' },
    documentId: { type: 'number' },
    documentNo: { type: 'string', nullable: true },
    fromAddress: { type: 'string', nullable: true },
    replyTo: { type: 'string', nullable: true },
    toAddress: { type: 'string', nullable: true },
    toCc: { type: 'string', nullable: true },
    toBcc: { type: 'string', nullable: true },
    subject: { type: 'string', nullable: true },
    body: { type: 'text', nullable: true },
    includeAttachment: { type: 'boolean' },
    attachments: { type: 'json' },
    status: { type: 'string' },
    error: { type: 'text', nullable: true },
    messageId: { type: 'string', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date() },
  },
});

export const deliveryEntities = [TemplateReplicaSchema, EmailRecordSchema];
