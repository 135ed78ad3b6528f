import { Dec } from '@ledgerline/core/money';
import { domesticParts, type OrderAccount } from './accounts.js';
import { bankText } from './bank-text.js';
import type { OrderFile } from './order-file.js';

/*
 * A CZK payment order as the Czech domestic batch file ABO (KPC), which Czech banks' internet
 * banking imports, written from the banks' published description ("Technická specifikace
 * struktury ABO formátu"; the same layout in Fio banka's "Struktura ABO" and Equa bank's "Formát
 * ABO"). Records end with CR LF; fields are separated by one space; amounts in hellers:
 *
 *   UHL1 header     UHL1 · date DDMMYY · client name (20, space-padded) · client number (10 digits)
 *                   · accounting files from (3) · to (3) · fixed code (6) · secret code (6)
 *                   (one field after another, no spaces; numbers the bank does not use are zeros)
 *   accounting file 1 · type 1501 (payments; 1502 is collections) · file number (3) + branch (3)
 *                   · bank code of the payer's bank (4)
 *   group           2 · payer account · Σ of the group in hellers · due date DDMMYY
 *   item            payee account · amount in hellers · variable symbol · payee bank code (4) and
 *                   constant symbol (4) as one field · specific symbol · AV: message (at most 35)
 *   end of group    3 +
 *   end of file     5 +
 *
 * Accounts are written `prefix-number`, the prefix to 6 and the number to 10 digits with zeros.
 * The file is ASCII: names and messages lose their diacritics.
 */

export class AboRefusal extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

function aboAccount(account: OrderAccount, path: string): { text: string; bank: string } {
  const parts = domesticParts(account);
  if (!parts) throw new AboRefusal(`the ABO file pays only Czech domestic accounts; ${account.iban ?? account.account_number ?? 'this account'} is not one`, path);
  return { text: `${parts.prefix.padStart(6, '0')}-${parts.number.padStart(10, '0')}`, bank: parts.bank };
}

const hellers = (amount: string) => Dec(amount).times(100).toFixed(0);
/** YYYY-MM-DD as DDMMYY. */
const ddmmyy = (day: string) => `${day.slice(8, 10)}${day.slice(5, 7)}${day.slice(2, 4)}`;
const digits = (s: string | null | undefined) => (s && /^\d+$/.test(s) ? s.replace(/^0+(?=\d)/, '') : '0');

export function aboFile(order: OrderFile): string {
  if (order.currency !== 'CZK') throw new AboRefusal(`the ABO file carries CZK payments; this order is in ${order.currency} (ask for pain.001)`, 'currency');
  const payer = aboAccount(order.debtor.account, 'from_account');
  const created = ddmmyy(order.createdAt.toISOString().slice(0, 10));
  const name = bankText(order.debtor.name, 20).toUpperCase().padEnd(20, ' ');
  const lines = [
    `UHL1${created}${name}${'0'.repeat(10)}001001${'0'.repeat(6)}${'0'.repeat(6)}`,
    `1 1501 001000 ${payer.bank}`,
    `2 ${payer.text} ${hellers(order.total)} ${ddmmyy(order.executionDate)}`,
    ...order.items.map((item, i) => {
      const payee = aboAccount(item.account, `items[${i}].account`);
      const constant = digits(item.constantSymbol).padStart(4, '0');
      const message = bankText(item.message, 35);
      return `${payee.text} ${hellers(item.amount)} ${digits(item.variableSymbol)} ${payee.bank}${constant} ${digits(item.specificSymbol)}${message ? ` AV:${message}` : ''}`;
    }),
    '3 +',
    '5 +',
  ];
  return `${lines.join('\r\n')}\r\n`;
}
