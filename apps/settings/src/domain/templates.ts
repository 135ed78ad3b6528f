import type { EntityManager } from '@mikro-orm/postgresql';
import { SUBJECTS, templateSchema, type Template, type TemplateRequest } from '@ledgerline/contracts';
import { ConflictError, NotFoundError, ValidationError, type FieldError, type TenantContext } from '@ledgerline/service-kit';
import { canonicalCulture, checkTemplate, safeColour, TemplateError } from '@ledgerline/rendering';
import { DocumentTemplateSchema, type DocumentTemplate } from '../db/templates.entities.js';


/** The full template, as answered by POST /v1/settings/templates and carried by `settings.template.saved`. */
export function templateView(t: DocumentTemplate): Template {
  return {
    id: t.id,
    code: t.code ?? null,
    name: t.name ?? null,
    html_template: t.htmlTemplate ?? null,
    url: t.url ?? null,
    file: t.file ?? null,
    design: t.design ?? null,
    pdf_options: (t.pdfOptions as Template['pdf_options']) ?? null,
    config: (t.config as Template['config']) ?? null,
    l10n: t.l10n ?? null,
    languages: t.languages ?? null,
  };
}

/** Template summary listed by GET /v1/lists/all/templates. */
export function templateSummaryView(t: DocumentTemplate) {
  return { id: t.id, code: t.code ?? null, name: t.name ?? null, design: t.design ?? null, languages: t.languages ?? null };
}

const blank = (s: string | null | undefined) => (s == null || s.trim() === '' ? null : s.trim());

/**
 * Rules beyond the schema: the Liquid source must parse in the sandbox (no file access tags),
 * brand colours must be CSS colours (they go into a style sheet), cultures must be BCP 47 tags.
 */
function checkContent(input: TemplateRequest): { l10n: DocumentTemplate['l10n']; languages: string[] | null } {
  const errors: FieldError[] = [];
  if (input.html_template && input.html_template.trim()) {
    try {
      checkTemplate(input.html_template);
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      errors.push({ path: 'html_template', message: e.message, code: 'template_invalid' });
    }
  }
  for (const key of ['brand_color_primary', 'brand_color_secondary', 'brand_color_alternative'] as const) {
    const v = input.config?.[key];
    if (v != null && v !== '' && safeColour(v, '') === '') {
      errors.push({ path: `config.${key}`, message: 'a CSS colour such as #1f4e79, rgb(31, 78, 121) or navy', code: 'invalid_colour' });
    }
  }
  const l10n = input.l10n?.map((r, i) => {
    const culture = canonicalCulture(r.culture);
    if (!culture) errors.push({ path: `l10n[${i}].culture`, message: 'a BCP 47 language tag such as cs-CZ', code: 'invalid_culture' });
    return { id: i + 1, culture: culture ?? r.culture, resource: r.resource, value: r.value };
  }) ?? null;
  const languages = input.languages?.map((l, i) => {
    const culture = canonicalCulture(l);
    if (!culture) errors.push({ path: `languages[${i}]`, message: 'a BCP 47 language tag such as cs-CZ', code: 'invalid_culture' });
    return culture ?? l;
  }) ?? null;
  if (errors.length) throw new ValidationError(`The template is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  return { l10n, languages };
}

/**
 * POST /v1/settings/templates: saves a template. With `id` it overwrites that template; otherwise a template with the same
 * `code` in the organisation is replaced (it keeps its id), else a new one is created. The stored
 * template is announced as `settings.template.saved` (sales keeps a replica it renders with).
 */
export async function saveTemplate(ctx: TenantContext, input: TemplateRequest): Promise<DocumentTemplate> {
  const { em, orgId } = ctx;
  const { l10n, languages } = checkContent(input);
  const code = blank(input.code);
  let target: DocumentTemplate | null = null;
  if (input.id != null) {
    target = await em.findOne(DocumentTemplateSchema, { id: input.id });
    if (!target) throw new NotFoundError(`No template ${input.id} in this organisation`, 'template_not_found');
    if (code) {
      const other = await em.findOne(DocumentTemplateSchema, { code, id: { $ne: input.id } });
      if (other) throw new ConflictError(`Template ${other.id} already has the code "${code}"`, 'template_code_taken');
    }
  } else if (code) {
    target = await em.findOne(DocumentTemplateSchema, { code });
  }
  const fields = {
    code,
    name: input.name ?? null,
    htmlTemplate: input.html_template ?? null,
    url: input.url ?? null,
    file: input.file ?? null,
    design: input.design ?? null,
    pdfOptions: (input.pdf_options as Record<string, unknown> | null | undefined) ?? null,
    config: (input.config as Record<string, unknown> | null | undefined) ?? null,
    l10n,
    languages,
  };
  const now = new Date();
  if (target) Object.assign(target, fields, { updatedAt: now });
  else target = em.create(DocumentTemplateSchema, { orgId, ...fields, createdAt: now, updatedAt: now });
  await em.flush();
  const data = templateSchema.parse(templateView(target));
  await ctx.emit({ subject: SUBJECTS.settingsTemplateSaved, orgId, resource: String(target.id), data });
  return target;
}

/** Document types every template serves (the default template included). */
export const TEMPLATE_DOCUMENT_TYPES = ['invoice', 'credit_note', 'sales_invoice', 'sales_credit_note'] as const;

/**
 * GET /v1/lists/all/templates: template summaries, `search` over code, name and design (case-insensitive), ordered by id.
 * `type` names the document type: every template renders invoices and credit notes, so a known
 * type lists them all and another type is refused (400).
 */
export async function listTemplates(em: EntityManager, q: { from: number; take: number; search?: string; type?: string }) {
  if (q.type !== undefined && q.type !== '' && !(TEMPLATE_DOCUMENT_TYPES as readonly string[]).includes(q.type.toLowerCase())) {
    throw new ValidationError(`Unknown document type "${q.type}"`, [
      { path: 'type', message: `one of ${TEMPLATE_DOCUMENT_TYPES.join(', ')}`, code: 'invalid_value' },
    ]);
  }
  const needle = q.search?.trim();
  const where = needle
    ? { $or: ['code', 'name', 'design'].map((f) => ({ [f]: { $ilike: `%${needle.replace(/[\\%_]/g, (m) => `\\${m}`)}%` } })) }
    : {};
  return em.find(DocumentTemplateSchema, where, { orderBy: { id: 'asc' }, offset: q.from, limit: q.take });
}
