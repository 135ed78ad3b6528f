import Decimal from 'decimal.js';
import type { ContactLookup, RegisterName, VatNumberCheck, VatPayerStatus, VendorCheck } from '@ledgerline/contracts';
import { checkCompanyNumber, checkCzechAccount, checkIban, checkVatNumber, VIES_PREFIXES } from '@ledgerline/documents/party-identifiers';
import { AppError, NotFoundError, ValidationError, type OperationContext } from '@ledgerline/service-kit';
import { readAresAnswer } from './ares.js';
import { askRegister, registerAnswer, registerProblem, RegisterFormatError, type RegisterSettings } from './register-answers.js';
import { readVatPayerAnswer, vatPayerRequest, VAT_PAYERS_NAMESPACE, type VatPayerFinding } from './vat-payers.js';
import { readViesAnswer, ViesUnavailable, type ViesFinding } from './vies.js';

/** The three registers' settings, as the service's configuration gives them. */
export type RegistersSettings = Record<RegisterName, RegisterSettings>;

/**
 * Where a register is asked from: the entity manager that keeps its answers, and for a request the
 * context's `outside` (its admission slot is given back while the register is waited on).
 */
export type RegisterScope = Pick<OperationContext, 'em'> & Partial<Pick<OperationContext, 'outside'>>;

/** A register's reply read by `parse`; its format errors become a 502 naming it. */
async function asked<T>(
  scope: RegisterScope,
  register: RegisterName,
  settings: RegisterSettings,
  call: Parameters<typeof askRegister>[2],
  path: string,
  parse: (status: number, text: string) => T,
): Promise<T> {
  const ask = () => askRegister(register, settings, call, path);
  const reply = await (scope.outside ? scope.outside(ask) : ask());
  try {
    return parse(reply.status, reply.text);
  } catch (err) {
    if (err instanceof RegisterFormatError) throw registerProblem(register, 502, 'register_error', err.message, path);
    throw err;
  }
}

/** GET /v1/contacts/lookup: what ARES says of the business with this IČO. */
export async function lookupCompany(scope: RegisterScope, registers: RegistersSettings, regNo: string): Promise<ContactLookup> {
  const ico = checkCompanyNumber(regNo);
  if ('problem' in ico) throw new ValidationError(`reg_no: ${ico.problem}`, [{ path: 'reg_no', message: ico.problem, code: 'invalid_reg_no' }]);
  const { answer, source } = await registerAnswer(scope.em, 'ares', registers.ares, ico.value, () =>
    asked(scope, 'ares', registers.ares, { path: `/ekonomicke-subjekty/${ico.value}` }, 'reg_no', (status, text) => readAresAnswer(ico.value, status, text)),
  );
  if ('not_found' in answer) throw new NotFoundError(`ARES has no business with IČO ${ico.value}`, 'not_in_register');
  return { ...answer, source };
}

function checkedVat(vatNo: string): string {
  const v = checkVatNumber(vatNo);
  if ('problem' in v) throw new ValidationError(`vat_no: ${v.problem}`, [{ path: 'vat_no', message: v.problem, code: 'invalid_vat_no' }]);
  return v.value;
}

/** GET /v1/contacts/vat-check: VIES's answer for an EU VAT number. */
export async function checkEuVatNumber(scope: RegisterScope, registers: RegistersSettings, vatNo: string): Promise<VatNumberCheck> {
  const vat = checkedVat(vatNo);
  const state = vat.slice(0, 2);
  if (!VIES_PREFIXES.has(state)) {
    throw new ValidationError(`vat_no: VIES checks the VAT numbers of EU member states; ${state} is not one`, [{ path: 'vat_no', message: 'not an EU VAT number', code: 'not_in_vies' }]);
  }
  const { answer, source } = await registerAnswer<ViesFinding>(scope.em, 'vies', registers.vies, vat, () =>
    asked(scope, 'vies', registers.vies, { path: `/ms/${state}/vat/${vat.slice(2)}` }, 'vat_no', (status, text) => {
      try {
        return readViesAnswer(status, text);
      } catch (err) {
        if (err instanceof ViesUnavailable) throw registerProblem('vies', 503, 'register_unavailable', `the member state's system cannot answer now (${err.userError})`, 'vat_no');
        throw err;
      }
    }),
  );
  return { vat_no: vat, ...answer, source };
}

/** GET /v1/contacts/vat-payer: what the Czech VAT payers' register says of a payer. */
export async function vatPayerStatus(scope: RegisterScope, registers: RegistersSettings, vatNo: string, now?: () => Date): Promise<VatPayerStatus> {
  const vat = checkedVat(vatNo);
  if (!vat.startsWith('CZ')) throw new ValidationError("vat_no: the Czech VAT payers' register knows Czech VAT numbers (CZ…)", [{ path: 'vat_no', message: 'not a Czech VAT number', code: 'not_czech_vat_no' }]);
  const { answer, source } = await registerAnswer<VatPayerFinding>(
    scope.em,
    'vat_payers',
    registers.vat_payers,
    vat,
    () =>
      asked(
        scope,
        'vat_payers',
        registers.vat_payers,
        { path: '', method: 'POST', body: vatPayerRequest(vat.slice(2)), headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${VAT_PAYERS_NAMESPACE}getStatusNespolehlivyPlatceRozsireny"` } },
        'vat_no',
        (status, text) => readVatPayerAnswer(vat, status, text),
      ),
    now,
  );
  return { vat_no: vat, ...answer, source };
}

/**
 * §109 of the VAT Act: the buyer guarantees the VAT of a supply it pays when the vendor is an
 * unreliable payer on the day (par. 3), or when it pays more than twice the limit of cash payments
 * (Act 254/2004 §4: CZK 270 000, so CZK 540 000) to an account the vendor has not published
 * (par. 2c). Only a Czech vendor registered for VAT has published accounts or can be unreliable.
 */
export const CASH_PAYMENT_LIMIT_CZK = '270000';
export const GUARANTEE_THRESHOLD_CZK = new Decimal(CASH_PAYMENT_LIMIT_CZK).times(2);

/** An account as the register lists it, for comparing: the IBAN when it has one, else the text. */
function accountKey(account: string): string {
  const czech = checkCzechAccount(account);
  if ('value' in czech) return czech.iban;
  const iban = checkIban(account);
  return 'value' in iban ? iban.value : account.replace(/\s/g, '').toUpperCase();
}

/** The vendor check a new bill records (`rpc.settings.registers.vendor_check`): never a failure, a status saying what was known. */
export async function vendorCheck(scope: RegisterScope, registers: RegistersSettings, req: { vat_no: string; account?: string | null; total_leg: string }, now: () => Date = () => new Date()): Promise<VendorCheck> {
  const overLimit = new Decimal(req.total_leg).abs().gt(GUARANTEE_THRESHOLD_CZK);
  const account = req.account?.trim() || null;
  const blank: VendorCheck = { status: 'not_checked', checked_at: null, unreliable_payer: null, account, account_published: null, over_limit: overLimit, reasons: [], register_read_at: null };
  const vat = checkVatNumber(req.vat_no);
  if ('problem' in vat || !vat.value.startsWith('CZ')) return { ...blank, reasons: ['the vendor has no Czech VAT number'] };
  if (!registers.vat_payers.url) return { ...blank, reasons: ["the VAT payers' register is not configured (VAT_PAYERS_URL)"] };
  // the check speaks for its day: an answer kept from an earlier day is asked again
  const today = { ...registers.vat_payers, freshMs: Math.min(registers.vat_payers.freshMs, msSincePragueMidnight(now())) };
  let status: VatPayerStatus;
  try {
    status = await vatPayerStatus(scope, { ...registers, vat_payers: today }, vat.value, now);
  } catch (err) {
    if (err instanceof AppError) return { ...blank, status: 'unavailable', checked_at: now().toISOString(), reasons: [err.message] };
    throw err;
  }
  if (status.source.age_seconds * 1000 > msSincePragueMidnight(now())) {
    return { ...blank, status: 'unavailable', checked_at: now().toISOString(), register_read_at: status.source.read_at, reasons: [`the register did not answer today; its last answer is from ${status.source.read_at}`] };
  }
  const reasons: string[] = [];
  if (!status.registered) return { ...blank, checked_at: now().toISOString(), register_read_at: status.source.read_at, reasons: ['the register does not know the vendor as a VAT payer'] };
  if (status.unreliable) reasons.push('the vendor is an unreliable VAT payer (§106a): the buyer guarantees its VAT (§109(3))');
  const published = account ? status.published_accounts.some((a) => (a.iban ?? a.account_number) && accountKey(a.iban ?? a.account_number!) === accountKey(account)) : null;
  if (overLimit && account && published === false) reasons.push(`more than CZK ${GUARANTEE_THRESHOLD_CZK.toFixed(0)} to account ${account}, which the vendor has not published (§109(2)(c))`);
  return {
    status: reasons.length ? 'risk' : 'ok',
    checked_at: now().toISOString(),
    unreliable_payer: status.unreliable,
    account,
    account_published: published,
    over_limit: overLimit,
    reasons,
    register_read_at: status.source.read_at,
  };
}

/** Milliseconds since the start of the day in Prague (the register's day). */
function msSincePragueMidnight(at: Date): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Prague', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return ((get('hour') * 60 + get('minute')) * 60 + get('second')) * 1000 + at.getMilliseconds();
}
