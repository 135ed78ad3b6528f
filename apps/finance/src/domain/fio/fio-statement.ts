import { z } from 'zod';
import { Dec } from '@ledgerline/core/money';
import type { ParsedStatement, StatementEntry } from '../statements/statement.js';
import { symbolDigits } from '../payment-symbols.js';

/*
 * The JSON Fio banka's API answers for an account's movements (FIO API Bankovnictví, "Struktura
 * formátu JSON"): `accountStatement.info` (the account, its currency and the balances at the start
 * and the end of the period) and `transactionList.transaction[]`, each movement a set of numbered
 * columns (`column22`: the movement id, `column0`: its day, `column1`: the amount, `column14`: the
 * currency, `column2`/`column3`: the counter-account and its bank code, `column10`: its name,
 * `column4`/`column5`/`column6`: constant, variable and specific symbol, `column7`: the user's
 * identification, `column16`: the message for the payee, `column8`: the movement's type). Read
 * into a statement as the files are: the bank's movement id is the entry's bank reference, by which
 * a movement fetched twice is recorded once.
 */

const column = <T extends z.ZodType>(value: T) => z.object({ value: value.nullable() }).nullish();
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}/);
const num = z.number().finite();

const transaction = z.object({
  column22: column(num),
  column0: column(day),
  column1: column(num),
  column14: column(z.string()),
  column2: column(z.union([z.string(), num])),
  column3: column(z.union([z.string(), num])),
  column10: column(z.string()),
  column4: column(z.union([z.string(), num])),
  column5: column(z.union([z.string(), num])),
  column6: column(z.union([z.string(), num])),
  column7: column(z.string()),
  column16: column(z.string()),
  column8: column(z.string()),
  column25: column(z.string()),
});

export const fioAnswerSchema = z.object({
  accountStatement: z.object({
    info: z.object({
      accountId: z.union([z.string(), num]),
      bankId: z.union([z.string(), num]),
      currency: z.string().regex(/^[A-Z]{3}$/),
      iban: z.string().nullish(),
      openingBalance: num,
      closingBalance: num,
      dateStart: day,
      dateEnd: day,
      idFrom: num.nullish(),
      idTo: num.nullish(),
    }),
    transactionList: z.object({ transaction: z.array(transaction).max(100_000).nullish() }).nullish(),
  }),
});
export type FioAnswer = z.infer<typeof fioAnswerSchema>;

const text = (v: unknown) => (v === null || v === undefined ? null : String(v).trim() || null);
const symbol = (v: unknown) => symbolDigits(text(v));

/** The movements of one answer as one statement of the account for the period asked. */
export function fioStatement(answer: FioAnswer): ParsedStatement {
  const { info, transactionList } = answer.accountStatement;
  const account = text(info.iban) ?? `${text(info.accountId)}/${text(info.bankId)}`;
  const dateTo = info.dateEnd.slice(0, 10);
  const entries: StatementEntry[] = (transactionList?.transaction ?? []).map((t, i) => {
    const id = t.column22?.value;
    const amount = t.column1?.value;
    const bookingDate = t.column0?.value?.slice(0, 10);
    if (id == null || amount == null || !bookingDate) throw new Error(`movement ${i + 1} has no id (column22), amount (column1) or day (column0)`);
    const counterAccount = text(t.column2?.value);
    const bankCode = text(t.column3?.value);
    const type = text(t.column8?.value) ?? '';
    return {
      order: i + 1,
      bankReference: String(id),
      amount: new Dec(String(amount)).toString(),
      currency: text(t.column14?.value) ?? info.currency,
      bookingDate,
      valueDate: bookingDate,
      variableSymbol: symbol(t.column5?.value),
      constantSymbol: symbol(t.column4?.value),
      specificSymbol: symbol(t.column6?.value),
      reference: text(t.column7?.value)?.slice(0, 140) ?? null,
      message: [text(t.column16?.value), text(t.column25?.value)].filter(Boolean).join(' | ').slice(0, 1000) || null,
      partnerName: text(t.column10?.value)?.slice(0, 255) ?? null,
      partnerAccount: counterAccount ? (bankCode ? `${counterAccount}/${bankCode}` : counterAccount).slice(0, 64) : null,
      // the bank's own charges are movements of the type Poplatek (a fee)
      isFee: /^poplatek/i.test(type),
      isReversal: false,
      extra: type ? `Fio: ${type}`.slice(0, 500) : null,
    };
  });
  return {
    format: 'fio',
    account,
    statementNo: `FIO-${dateTo}-${info.idTo ?? 0}`,
    currency: info.currency,
    openingBalance: new Dec(String(info.openingBalance)).toString(),
    closingBalance: new Dec(String(info.closingBalance)).toString(),
    dateFrom: info.dateStart.slice(0, 10),
    dateTo,
    entries,
  };
}
