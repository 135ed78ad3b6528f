import type { EntityManager } from '@mikro-orm/postgresql';
import { vatNumberCheckRequestSchema } from '@ledgerline/contracts';
import { AppError } from '@ledgerline/service-kit';
import { checkEuVatNumber, type RegistersSettings } from './registers.js';

/** `rpc.settings.registers.vat_check`: VIES's answer, or the problem the API would answer instead (the caller records either). */
export async function vatNumberCheckAnswer(em: EntityManager, registers: RegistersSettings, data: unknown) {
  const { vat_no } = vatNumberCheckRequestSchema.parse(data);
  try {
    const c = await checkEuVatNumber({ em }, registers, vat_no);
    return { check: { valid: c.valid, vat_no: c.vat_no, request_date: c.request_date, consultation_number: c.consultation_number }, problem: null };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { check: null, problem: { status: err.status, code: err.code, detail: err.message } };
  }
}
