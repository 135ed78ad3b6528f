import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const TemplateReplicaSchema = defineEntity({
  name: 'TemplateReplica',
  tableName: 'template_replicas',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    templateId: p.integer(),
    code: p.string().nullable(),
    template: p.json<Record<string, unknown>>(),
    sourceTime: p.datetime(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
/**
 * Local replica of the organisation's templates, fed by `settings.template.saved`: sales renders
 * with it and never calls settings to render.
 */
export type TemplateReplica = InferEntity<typeof TemplateReplicaSchema>;

export type EmailStatus = 'sent' | 'written' | 'failed';

export const EmailRecordSchema = defineEntity({
  name: 'EmailRecord',
  tableName: 'email_records',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    documentType: p.string().$type<'sales_invoice' | 'sales_credit_note' | 'sales_proforma'>(),
    documentId: p.integer(),
    documentNo: p.string().nullable(),
    fromAddress: p.string().nullable(),
    replyTo: p.string().nullable(),
    toAddress: p.string().nullable(),
    toCc: p.string().nullable(),
    toBcc: p.string().nullable(),
    subject: p.string().nullable(),
    body: p.text().nullable(),
    includeAttachment: p.boolean(),
    attachments: p.json<Array<{ id: number; file_name: string; size: number }>>(),
    status: p.string().$type<EmailStatus>(),
    error: p.text().nullable(),
    messageId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** One attempt to send a document by e-mail, with its outcome. */
export type EmailRecord = InferEntity<typeof EmailRecordSchema>;

export const deliveryEntities = [TemplateReplicaSchema, EmailRecordSchema];
