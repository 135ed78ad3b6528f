import { Xml } from '@ledgerline/documents/xml';
import { bankReference, bankText } from './bank-text.js';
import type { OrderFile } from './order-file.js';

/*
 * A payment order as ISO 20022 `pain.001.001.03` (CustomerCreditTransferInitiationV03), the message
 * Czech and EU banks take for batches of credit transfers: one group header, one payment
 * information block (one debtor account, one execution date), one credit transfer per bill.
 * Elements in the schema's order; names and texts in the EPC's character set and lengths (EPC132-08
 * SCT C2B implementation guidelines): Nm 70, Ustrd 140, ids 35. A EUR order is a SEPA credit
 * transfer (service level SEPA, charges SLEV, creditor by IBAN); a CZK order a domestic payment.
 */

const NS = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.03';

/** An agent (bank) by its BIC, or `NOTPROVIDED` (EPC: the BIC is optional for the debtor's bank within the EEA). */
function agent(x: Xml, name: string, bic: string | null, required: boolean): void {
  if (!bic && !required) return;
  x.open(name).open('FinInstnId');
  if (bic) x.leaf('BIC', bic);
  else x.open('Othr').leaf('Id', 'NOTPROVIDED').close('Othr');
  x.close('FinInstnId').close(name);
}

function account(x: Xml, name: string, iban: string, currency?: string): void {
  x.open(name).open('Id').leaf('IBAN', iban).close('Id');
  if (currency) x.leaf('Ccy', currency);
  x.close(name);
}

/** `2026-12-03T09:15:00`: ISODateTime to the second. */
const isoSeconds = (d: Date) => d.toISOString().slice(0, 19);

export function pain001Xml(order: OrderFile): string {
  const sepa = order.currency === 'EUR';
  const count = String(order.items.length);
  const debtorName = bankText(order.debtor.name, 70) || 'NOTPROVIDED';
  const x = new Xml();
  x.open('Document', { xmlns: NS }).open('CstmrCdtTrfInitn');
  x.open('GrpHdr')
    .leaf('MsgId', bankReference(order.messageId))
    .leaf('CreDtTm', isoSeconds(order.createdAt))
    .leaf('NbOfTxs', count)
    .leaf('CtrlSum', order.total)
    .open('InitgPty')
    .leaf('Nm', debtorName)
    .close('InitgPty')
    .close('GrpHdr');
  x.open('PmtInf').leaf('PmtInfId', bankReference(`PO-${order.id}`)).leaf('PmtMtd', 'TRF').leaf('BtchBookg', 'false').leaf('NbOfTxs', count).leaf('CtrlSum', order.total);
  if (sepa) x.open('PmtTpInf').open('SvcLvl').leaf('Cd', 'SEPA').close('SvcLvl').close('PmtTpInf');
  x.leaf('ReqdExctnDt', order.executionDate);
  x.open('Dbtr').leaf('Nm', debtorName).close('Dbtr');
  account(x, 'DbtrAcct', order.debtor.account.iban!, order.currency);
  agent(x, 'DbtrAgt', order.debtor.account.bic, true);
  if (sepa) x.leaf('ChrgBr', 'SLEV');
  for (const item of order.items) {
    x.open('CdtTrfTxInf');
    x.open('PmtId').leaf('InstrId', bankReference(`PO-${order.id}-${item.line}`)).leaf('EndToEndId', sepa ? bankReference(item.endToEndId) : item.endToEndId).close('PmtId');
    x.open('Amt').leaf('InstdAmt', item.amount, { Ccy: order.currency }).close('Amt');
    agent(x, 'CdtrAgt', item.account.bic, false);
    x.open('Cdtr').leaf('Nm', bankText(item.creditor.name, 70) || 'NOTPROVIDED');
    const lines = item.creditor.addressLines.map((l) => bankText(l, 70)).filter(Boolean).slice(0, 2);
    if (item.creditor.country || lines.length) {
      x.open('PstlAdr');
      if (item.creditor.country) x.leaf('Ctry', item.creditor.country);
      for (const l of lines) x.leaf('AdrLine', l);
      x.close('PstlAdr');
    }
    x.close('Cdtr');
    account(x, 'CdtrAcct', item.account.iban!);
    const message = bankText(item.message, 140);
    if (message) x.open('RmtInf').leaf('Ustrd', message).close('RmtInf');
    x.close('CdtTrfTxInf');
  }
  x.close('PmtInf').close('CstmrCdtTrfInitn').close('Document');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${x.toString()}\n`;
}
