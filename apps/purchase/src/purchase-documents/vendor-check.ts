import { RPC_SUBJECTS, vendorCheckSchema, type VendorCheck } from '@ledgerline/contracts';
import { AppError, type TenantContext } from '@ledgerline/service-kit';

/**
 * A new bill's check of its vendor in the Czech VAT payers' register (§109 of the VAT Act), made
 * by settings, which keeps the registers: an unreliable payer, or more than twice the cash-payment
 * limit to an account the vendor has not published, is a `risk` the bill shows (and paying it by
 * order asks to be confirmed). A vendor without a Czech VAT number is `not_checked`; settings not
 * answering leaves the bill `unavailable` — the bill is recorded either way.
 */
export async function checkVendor(ctx: Pick<TenantContext, 'ask' | 'now'>, req: { vendor: { vat_no?: string | null }; bank_account_number?: string | null }, totalLeg: unknown): Promise<VendorCheck | null> {
  const vatNo = req.vendor.vat_no?.trim();
  if (!vatNo || !/^CZ/i.test(vatNo)) return null;
  try {
    return vendorCheckSchema.parse(await ctx.ask(RPC_SUBJECTS.settingsVendorCheck, { vat_no: vatNo, account: req.bank_account_number ?? null, total_leg: String(totalLeg ?? '0') }));
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: 'unavailable', checked_at: ctx.now().toISOString(), unreliable_payer: null, account: req.bank_account_number ?? null, account_published: null, over_limit: false, reasons: [err.message], register_read_at: null };
  }
}
