import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const DocumentTemplateSchema = defineEntity({
  name: 'DocumentTemplate',
  tableName: 'document_templates',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    code: p.string().nullable(),
    name: p.string().nullable(),
    htmlTemplate: p.text().nullable(),
    url: p.string().nullable(),
    file: p.string().nullable(),
    design: p.string().nullable(),
    pdfOptions: p.json<Record<string, unknown>>().nullable(),
    config: p.json<Record<string, unknown>>().nullable(),
    l10n: p.json<Array<{ id: number; culture: string; resource: string; value: string }>>().nullable(),
    languages: p.json<string[]>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
/** A document template. `code` is unique in the organisation when set. */
export type DocumentTemplate = InferEntity<typeof DocumentTemplateSchema>;

export const DeliveryConditionSchema = defineEntity({
  name: 'DeliveryCondition',
  tableName: 'delivery_conditions',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    code: p.string(),
    name: p.string(),
    l10n: p.json<Array<{ id: number; culture: string; name: string }>>(),
    position: p.integer(),
  },
});
/** A delivery condition: the Incoterms 2020 rules, seeded per organisation. */
export type DeliveryCondition = InferEntity<typeof DeliveryConditionSchema>;

export const documentEntities = [DocumentTemplateSchema, DeliveryConditionSchema];
