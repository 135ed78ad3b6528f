import type { EntityManager } from '@mikro-orm/postgresql';
import { templateSchema, type CloudEvent, type Template } from '@ledgerline/contracts';
import { NotFoundError, PoisonMessageError } from '@ledgerline/service-kit';
import { DEFAULT_TEMPLATE_CODE } from '@ledgerline/rendering';
import { TemplateReplicaSchema } from '../db/delivery.entities.js';

/**
 * Applies `settings.template.saved` to the local replica. Each event carries the whole template,
 * so the newest one wins; an older event arriving late changes nothing.
 */
export async function applyTemplateSaved(em: EntityManager, event: CloudEvent): Promise<'applied' | 'stale'> {
  const parsed = templateSchema.safeParse(event.data);
  const orgId = Number(event.orgid);
  if (!parsed.success || !Number.isSafeInteger(orgId) || orgId <= 0) {
    throw new PoisonMessageError(`settings.template.saved ${event.id} does not carry a template of an organisation`);
  }
  const t = parsed.data;
  const time = new Date(event.time);
  const existing = await em.findOne(TemplateReplicaSchema, { templateId: t.id });
  if (existing && existing.sourceTime > time) return 'stale';
  const fields = { code: t.code ?? null, template: t as Record<string, unknown>, sourceTime: time, updatedAt: new Date() };
  if (existing) Object.assign(existing, fields);
  else em.create(TemplateReplicaSchema, { orgId, templateId: t.id, ...fields });
  await em.flush();
  return 'applied';
}

/**
 * The template a rendering uses: `layout` names a template code (404 when the organisation has
 * none by that code; `default` is the built-in template unless the organisation saved its own
 * under that code). Without `layout`, the document's `template_layout` when it still exists,
 * else the built-in template (null).
 */
export async function resolveTemplate(em: EntityManager, layout: string | undefined, documentLayout: unknown): Promise<Template | null> {
  const find = async (code: string) =>
    (await em.findOne(TemplateReplicaSchema, { code }, { orderBy: { sourceTime: 'desc' } }))?.template as Template | undefined;
  const wanted = layout?.trim();
  if (wanted) {
    const t = await find(wanted);
    if (t) return t;
    if (wanted === DEFAULT_TEMPLATE_CODE) return null;
    throw new NotFoundError(`No template with the code "${wanted}" in this organisation`, 'template_not_found');
  }
  if (typeof documentLayout === 'string' && documentLayout.trim()) return (await find(documentLayout.trim())) ?? null;
  return null;
}
