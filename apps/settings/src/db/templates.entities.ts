import { EntitySchema } from '@mikro-orm/core';

/** A document template (spec §2.9). `code` is unique in the organisation when set. */
export interface DocumentTemplate {
  id: number;
  orgId: number;
  code?: string | null;
  name?: string | null;
  htmlTemplate?: string | null;
  url?: string | null;
  file?: string | null;
  design?: string | null;
  pdfOptions?: Record<string, unknown> | null;
  config?: Record<string, unknown> | null;
  l10n?: Array<{ id: number; culture: string; resource: string; value: string }> | null;
  languages?: string[] | null;
  createdAt: Date;
  updatedAt: Date;
}

export const DocumentTemplateSchema = new EntitySchema<DocumentTemplate>({
  name: 'DocumentTemplate',
  tableName: 'document_templates',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    code: { type: 'string', nullable: true },
    name: { type: 'string', nullable: true },
    htmlTemplate: { type: 'text', nullable: true },
    url: { type: 'string', nullable: true },
    file: { type: 'string', nullable: true },
    design: { type: 'string', nullable: true },
    pdfOptions: { type: 'json', nullable: true },
    config: { type: 'json', nullable: true },
    l10n: { type: 'json', nullable: true },
    languages: { type: 'json', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date() },
    updatedAt: { type: 'Date', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});

/** A delivery condition (spec §2.11): the Incoterms 2020 rules, seeded per organisation. */
export interface DeliveryCondition {
  id: number;
  orgId: number;
  code: string;
  name: string;
  l10n: Array<{ id: number; culture: string; name: string }>;
  position: number;
}

export const DeliveryConditionSchema = new EntitySchema<DeliveryCondition>({
  name: 'DeliveryCondition',
  tableName: 'delivery_conditions',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    code: { type: 'string' },
    name: { type: 'string' },
    l10n: { type: 'json' },
    position: { type: 'number' },
  },
});

export const documentEntities = [DocumentTemplateSchema, DeliveryConditionSchema];
