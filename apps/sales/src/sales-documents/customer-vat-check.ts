import { RPC_SUBJECTS, vatNumberCheckAnswerSchema, type Contact, type CustomerVatCheck } from '@ledgerline/contracts';
import type { DocumentCategories } from '@ledgerline/documents/line-categories';
import { AppError, type TenantContext } from '@ledgerline/service-kit';

/**
 * An intra-EU supply (a line of tax category K) is exempt only to a customer registered for VAT in
 * another member state on the day: the document asks VIES through settings and records the answer
 * (`customer_vat_check`), as the tax office expects the supplier to show. The document is issued
 * whatever the answer; VIES not answering leaves it `unavailable`.
 */
export async function checkIntraEuCustomer(ctx: Pick<TenantContext, 'ask' | 'now'>, customer: Contact, categories: DocumentCategories): Promise<CustomerVatCheck | null> {
  if (![...categories.recap.values()].includes('K')) return null;
  const checkedAt = ctx.now().toISOString();
  const vatNo = customer.vat_no?.trim() || null;
  const blank = { vat_no: vatNo, request_date: null, consultation_number: null, checked_at: checkedAt };
  if (!vatNo) return { ...blank, status: 'invalid', reasons: ['the customer has no VAT number: an intra-EU supply needs one'] };
  let answer;
  try {
    answer = vatNumberCheckAnswerSchema.parse(await ctx.ask(RPC_SUBJECTS.settingsVatNumberCheck, { vat_no: vatNo }));
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { ...blank, status: 'unavailable', reasons: [err.message] };
  }
  if (answer.check) {
    const c = answer.check;
    return { status: c.valid ? 'valid' : 'invalid', vat_no: c.vat_no, request_date: c.request_date, consultation_number: c.consultation_number, checked_at: checkedAt, reasons: c.valid ? [] : ['VIES does not confirm the number as a VAT registration'] };
  }
  const p = answer.problem!;
  const status = p.code === 'register_not_configured' ? 'not_checked' : p.status === 400 ? 'invalid' : 'unavailable';
  return { ...blank, status, reasons: [p.detail] };
}
