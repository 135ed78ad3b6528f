import { XMLParser } from 'fast-xml-parser';
import { checkCzechAccount } from '@ledgerline/documents/party-identifiers';
import { RegisterFormatError } from './register-answers.js';

/*
 * The Czech register of VAT payers (the tax administration's web service rozhraniCRPDPH, SOAP
 * over HTTP): `getStatusNespolehlivyPlatceRozsireny` takes up to a hundred DIČ without their CZ
 * and answers per payer `statusPlatceDPH` with `nespolehlivyPlatce` (ANO: unreliable, NE: reliable,
 * NENALEZEN: not a VAT payer), the tax office (`cisloFu`), `datumZverejneniNespolehlivosti`, the
 * accounts it has published (`zverejneneUcty/ucet` with `standardniUcet predcisli? cislo kodBanky`
 * or `nestandardniUcet cislo`, each `datumZverejneni`), its name and address. `status/@statusCode`
 * is 0 when the answer is good.
 */

export const VAT_PAYERS_NAMESPACE = 'http://adis.mfcr.cz/rozhraniCRPDPH/';

export interface VatPayerFinding {
  registered: boolean;
  unreliable: boolean | null;
  unreliable_since: string | null;
  tax_office: string | null;
  name: string | null;
  published_accounts: Array<{ account_number: string | null; iban: string | null; published_on: string | null }>;
}

/** The SOAP request for one DIČ (its digits, without CZ). */
export function vatPayerRequest(digits: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:roz="${VAT_PAYERS_NAMESPACE}">` +
    `<soapenv:Body><roz:StatusNespolehlivyPlatceRozsirenyRequest><roz:dic>${digits.replace(/\D/g, '')}</roz:dic></roz:StatusNespolehlivyPlatceRozsirenyRequest></soapenv:Body>` +
    '</soapenv:Envelope>'
  );
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true, processEntities: false, parseTagValue: false, parseAttributeValue: false, isArray: (name) => name === 'ucet' || name === 'statusPlatceDPH' });

type Node = Record<string, unknown>;
const at = (n: unknown, k: string): unknown => (n && typeof n === 'object' ? (n as Node)[k] : undefined);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const day = (v: unknown): string | null => {
  const t = str(v);
  return t && /^\d{4}-\d{2}-\d{2}/.test(t) ? t.slice(0, 10) : null;
};

function account(ucet: unknown): VatPayerFinding['published_accounts'][number] | null {
  const published_on = day(at(ucet, '@datumZverejneni'));
  const standard = at(ucet, 'standardniUcet');
  if (standard) {
    const prefix = str(at(standard, '@predcisli'));
    const written = `${prefix ? `${prefix}-` : ''}${str(at(standard, '@cislo')) ?? ''}/${str(at(standard, '@kodBanky')) ?? ''}`;
    const checked = checkCzechAccount(written);
    return 'value' in checked ? { account_number: checked.value, iban: checked.iban, published_on } : { account_number: written, iban: null, published_on };
  }
  const other = str(at(at(ucet, 'nestandardniUcet'), '@cislo'));
  return other ? { account_number: null, iban: other.replace(/\s/g, '').toUpperCase(), published_on } : null;
}

/** The register's SOAP answer for `vat_no` (CZ and digits); a fault or a status other than 0 is a RegisterFormatError. */
export function readVatPayerAnswer(vatNo: string, httpStatus: number, body: string): VatPayerFinding {
  let doc: unknown;
  try {
    doc = parser.parse(body);
  } catch {
    throw new RegisterFormatError(`answered ${httpStatus} with a body that is not XML`);
  }
  const soapBody = at(at(doc, 'Envelope'), 'Body');
  const fault = at(soapBody, 'Fault');
  if (fault) throw new RegisterFormatError(`answered a SOAP fault: ${str(at(fault, 'faultstring')) ?? 'no reason given'}`);
  const response = at(soapBody, 'StatusNespolehlivyPlatceRozsirenyResponse') ?? at(soapBody, 'StatusNespolehlivyPlatceResponse');
  if (!response) throw new RegisterFormatError(`answered ${httpStatus} without a StatusNespolehlivyPlatceRozsirenyResponse`);
  const code = str(at(at(response, 'status'), '@statusCode'));
  if (code !== '0') throw new RegisterFormatError(`answered status ${code ?? '(none)'}: ${str(at(at(response, 'status'), '@statusText')) ?? ''}`.trim());
  const digits = vatNo.replace(/^CZ/, '');
  const payers = (at(response, 'statusPlatceDPH') as unknown[] | undefined) ?? [];
  const payer = payers.find((p) => str(at(p, '@dic'))?.replace(/^CZ/, '') === digits);
  const state = str(at(payer, '@nespolehlivyPlatce'));
  if (!payer || state === 'NENALEZEN') return { registered: false, unreliable: null, unreliable_since: null, tax_office: null, name: null, published_accounts: [] };
  if (state !== 'ANO' && state !== 'NE') throw new RegisterFormatError(`answered nespolehlivyPlatce="${state ?? ''}"`);
  const accounts = ((at(at(payer, 'zverejneneUcty'), 'ucet') as unknown[] | undefined) ?? []).map(account).filter((a): a is NonNullable<typeof a> => a !== null);
  return {
    registered: true,
    unreliable: state === 'ANO',
    unreliable_since: state === 'ANO' ? day(at(payer, '@datumZverejneniNespolehlivosti')) : null,
    tax_office: str(at(payer, '@cisloFu')),
    name: str(at(payer, 'nazevSubjektu')),
    published_accounts: accounts,
  };
}
