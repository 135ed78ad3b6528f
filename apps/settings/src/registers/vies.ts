import { RegisterFormatError } from './register-answers.js';

/*
 * VIES, the European Commission's VAT number check, through its REST API:
 * `GET {VIES_URL}/ms/{member state}/vat/{number}` answers `{isValid, requestDate, userError, name,
 * address, requestIdentifier, vatNumber}`. `userError` is VALID or INVALID for an answer; the
 * others say the check could not be made (the member state's system down or busy, VIES itself).
 */

export interface ViesFinding {
  valid: boolean;
  name: string | null;
  address: string | null;
  request_date: string;
  consultation_number: string | null;
}

/** The userErrors that mean the member state's answer could not be had now (try later). */
const UNAVAILABLE = new Set(['MS_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'TIMEOUT', 'MS_MAX_CONCURRENT_REQ', 'GLOBAL_MAX_CONCURRENT_REQ', 'MS_MAX_CONCURRENT_REQ_TIME', 'GLOBAL_MAX_CONCURRENT_REQ_TIME']);

export class ViesUnavailable extends Error {
  constructor(readonly userError: string) {
    super(userError);
  }
}

/** "---" is how VIES writes a name or address a member state does not disclose. */
const disclosed = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' && !/^-+$/.test(v.trim()) ? v.trim().replace(/\s*\n\s*/g, ', ') : null);

export function readViesAnswer(status: number, body: string): ViesFinding {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw new RegisterFormatError(`answered ${status} with a body that is not JSON`);
  }
  const userError = typeof json.userError === 'string' ? json.userError : null;
  if (userError && UNAVAILABLE.has(userError)) throw new ViesUnavailable(userError);
  if (status !== 200) throw new RegisterFormatError(`answered ${status}${userError ? ` (${userError})` : ''}`);
  if (typeof json.isValid !== 'boolean') throw new RegisterFormatError('answered without isValid');
  const day = typeof json.requestDate === 'string' && /^\d{4}-\d{2}-\d{2}/.test(json.requestDate) ? json.requestDate.slice(0, 10) : null;
  if (!day) throw new RegisterFormatError('answered without its requestDate');
  return {
    valid: json.isValid,
    name: disclosed(json.name),
    address: disclosed(json.address),
    request_date: day,
    consultation_number: typeof json.requestIdentifier === 'string' && json.requestIdentifier !== '' ? json.requestIdentifier : null,
  };
}
