import { Dec } from '@ledgerline/core/money';
import { xmlLeaf as text, type XmlNode } from '@ledgerline/service-kit';
import { badStatement, bankReference, calendarDay, statementAccount, statementAmount, statementNumber, symbolDigits, variableSymbolIn, type ParsedStatement, type StatementEntry } from './statement.js';

/*
 * ISO 20022 camt.053 (BankToCustomerStatement), versions .001.02 to .001.08: one statement per
 * `Stmt`, several per file. An entry (`Ntry`) that is a batch (`NtryDtls/TxDtls` more than once)
 * becomes one transaction per TxDtls, whose amounts must add up to the entry's. Only booked
 * entries (status BOOK) are statement movements. The party on the other side is the debtor of
 * money in and the creditor of money out.
 */

export const CAMT053_NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:camt\.053\.001\.0[2-8]$/;
export const CAMT_ARRAYS = ['Stmt', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd'];

const asArray = (v: unknown): XmlNode[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

/** A date (`Dt`) or date-time (`DtTm`) element as YYYY-MM-DD. */
function day(node: XmlNode | undefined, path: string, required = true): string | null {
  const raw = text(node?.Dt) ?? text(node?.DtTm)?.slice(0, 10) ?? null;
  if (raw === null) {
    if (required) throw badStatement(`${path} is missing`, path);
    return null;
  }
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  if (!d) throw badStatement(`${path} is not a date: ${raw.slice(0, 30)}`, path);
  return calendarDay(Number(d[1]), Number(d[2]), Number(d[3]), path, raw);
}

/** An `Amt` element with its currency, signed by the credit/debit indicator beside it. */
function signedAmount(node: XmlNode, path: string): { amount: string; currency: string } {
  const amt = node.Amt;
  const currency = text(amt?.['@Ccy']);
  if (!currency || !/^[A-Z]{3}$/.test(currency)) throw badStatement(`${path}/Amt has no currency (Ccy)`, `${path}/Amt`);
  const value = statementAmount(text(amt) ?? '', `${path}/Amt`);
  const indicator = text(node.CdtDbtInd);
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw badStatement(`${path}/CdtDbtInd must be CRDT or DBIT`, `${path}/CdtDbtInd`);
  return { amount: indicator === 'DBIT' ? Dec(value).neg().toString() : value, currency };
}

function accountOf(node: XmlNode | undefined): string | null {
  return text(node?.Id?.IBAN) ?? text(node?.Id?.Othr?.Id);
}

/** A party's name: `Nm` directly (up to .07) or under `Pty` (.08). */
function partyName(node: XmlNode | undefined): string | null {
  return text(node?.Nm) ?? text(node?.Pty?.Nm);
}

function balance(balances: XmlNode[], codes: string[], path: string) {
  const found = balances.find((b) => codes.includes(text(b.Tp?.CdOrPrtry?.Cd) ?? ''));
  if (!found) throw badStatement(`${path} has no ${codes.join(' or ')} balance`, `${path}/Bal`);
  const i = balances.indexOf(found) + 1;
  return { ...signedAmount(found, `${path}/Bal[${i}]`), date: day(found.Dt, `${path}/Bal[${i}]/Dt`)! };
}

function isFee(entry: XmlNode, tx: XmlNode | null): boolean {
  const codes = [tx?.BkTxCd, entry.BkTxCd].map((c) => text(c?.Domn?.Fmly?.SubFmlyCd));
  return codes.includes('CHRG');
}

function transaction(
  entry: XmlNode,
  tx: XmlNode | null,
  amount: string,
  currency: string,
  order: number,
  booked: { booking: string; value: string | null },
  entryReference: string | null,
  path: string,
): StatementEntry {
  const refs = (tx?.Refs ?? {}) as XmlNode;
  const remittance = (tx?.RmtInf ?? {}) as XmlNode;
  const unstructured = asArray(remittance.Ustrd).map((u) => text(u)).filter(Boolean).join(' ') || null;
  const creditorRef = asArray(remittance.Strd).map((s) => text(s?.CdtrRefInf?.Ref)).find(Boolean) ?? null;
  const endToEnd = text(refs.EndToEndId);
  const moneyIn = Dec(amount).gt(0);
  const parties = (tx?.RltdPties ?? {}) as XmlNode;
  // Czech and Slovak banks carry the variable symbol in the structured reference, the end-to-end
  // id (`VS123/SS/KS` or the digits alone) or the message
  const variableSymbol =
    symbolDigits(creditorRef) ?? variableSymbolIn(endToEnd) ?? (endToEnd && endToEnd !== 'NOTPROVIDED' ? symbolDigits(endToEnd) : null) ?? variableSymbolIn(unstructured) ?? variableSymbolIn(text(entry.AddtlNtryInf));
  const reference = creditorRef ?? (endToEnd && endToEnd !== 'NOTPROVIDED' ? endToEnd : null);
  return {
    order,
    bankReference: bankReference(text(refs.AcctSvcrRef) ?? entryReference, path),
    amount,
    currency,
    bookingDate: booked.booking,
    valueDate: booked.value,
    variableSymbol,
    constantSymbol: null,
    specificSymbol: null,
    reference: reference && reference !== variableSymbol ? reference.slice(0, 140) : null,
    message: (unstructured ?? text(tx?.AddtlTxInf) ?? text(entry.AddtlNtryInf))?.slice(0, 1000) ?? null,
    partnerName: partyName(moneyIn ? parties.Dbtr : parties.Cdtr)?.slice(0, 255) ?? null,
    partnerAccount: accountOf(moneyIn ? parties.DbtrAcct : parties.CdtrAcct)?.slice(0, 64) ?? null,
    isFee: isFee(entry, tx),
    isReversal: text(entry.RvslInd) === 'true',
  };
}

/** Every statement of a camt.053 document (its `BkToCstmrStmt`). */
export function parseCamt053(root: XmlNode): ParsedStatement[] {
  const statements = asArray(root.BkToCstmrStmt?.Stmt);
  if (statements.length === 0) throw badStatement('The document has no BkToCstmrStmt/Stmt', 'BkToCstmrStmt/Stmt');
  return statements.map((stmt, si) => {
    const path = `Stmt[${si + 1}]`;
    const account = accountOf(stmt.Acct);
    if (!account) throw badStatement(`${path}/Acct has no IBAN or other id`, `${path}/Acct/Id`);
    const statementNo = text(stmt.ElctrncSeqNb) ?? text(stmt.LglSeqNb) ?? text(stmt.Id);
    if (!statementNo) throw badStatement(`${path} has no Id`, `${path}/Id`);
    const balances = asArray(stmt.Bal);
    // opening: booked opening (OPBD) or the previous statement's closing (PRCD); closing: booked closing (CLBD)
    const opening = balance(balances, ['OPBD', 'PRCD'], path);
    const closing = balance(balances, ['CLBD'], path);
    const currency = text(stmt.Acct?.Ccy) ?? opening.currency;
    if (opening.currency !== currency || closing.currency !== currency) throw badStatement(`${path}: the balances are not in the account's currency ${currency}`, `${path}/Bal`);

    const entries: StatementEntry[] = [];
    asArray(stmt.Ntry).forEach((entry, ni) => {
      const epath = `${path}/Ntry[${ni + 1}]`;
      const status = text(entry.Sts?.Cd) ?? text(entry.Sts);
      if (status !== null && status !== 'BOOK') return; // pending and informational entries move no balance
      const { amount, currency: ccy } = signedAmount(entry, epath);
      if (ccy !== currency) throw badStatement(`${epath}/Amt is in ${ccy}, the account in ${currency}`, `${epath}/Amt`);
      const booked = { booking: day(entry.BookgDt, `${epath}/BookgDt`)!, value: day(entry.ValDt, `${epath}/ValDt`, false) };
      const details = asArray(entry.NtryDtls).flatMap((d) => asArray(d.TxDtls));
      if (details.length <= 1) {
        entries.push(transaction(entry, details[0] ?? null, amount, currency, entries.length + 1, booked, text(entry.AcctSvcrRef), `${epath}/AcctSvcrRef`));
        return;
      }
      // a batch: one transaction per TxDtls, each signed like the entry, adding up to it
      const sign = Dec(amount).lt(0) ? -1 : 1;
      let sum = Dec(0);
      details.forEach((tx, ti) => {
        const tpath = `${epath}/NtryDtls/TxDtls[${ti + 1}]`;
        const txAmount = tx.AmtDtls?.TxAmt?.Amt ?? tx.Amt;
        if (!txAmount) throw badStatement(`${tpath} has no amount (AmtDtls/TxAmt/Amt or Amt)`, `${tpath}/Amt`);
        const value = Dec(statementAmount(text(txAmount) ?? '', `${tpath}/Amt`)).times(sign).toString();
        sum = sum.plus(value);
        // a transaction without its own reference is known by the entry's and its place in the batch
        const entryRef = bankReference(text(entry.AcctSvcrRef), `${epath}/AcctSvcrRef`);
        entries.push(transaction(entry, tx, value, currency, entries.length + 1, booked, entryRef ? `${entryRef}/${ti + 1}` : null, `${tpath}/Refs/AcctSvcrRef`));
      });
      if (!sum.eq(amount)) throw badStatement(`${epath}: its transactions add up to ${sum.toString()}, the entry says ${amount}`, epath);
    });

    const dates = entries.map((e) => e.bookingDate).sort();
    const from = day(stmt.FrToDt?.FrDtTm ? { DtTm: stmt.FrToDt.FrDtTm } : undefined, `${path}/FrToDt/FrDtTm`, false) ?? opening.date ?? dates[0];
    const to = day(stmt.FrToDt?.ToDtTm ? { DtTm: stmt.FrToDt.ToDtTm } : undefined, `${path}/FrToDt/ToDtTm`, false) ?? closing.date ?? dates.at(-1);
    return {
      format: 'camt053' as const,
      account: statementAccount(account, `${path}/Acct/Id`),
      statementNo: statementNumber(statementNo, `${path}/Id`),
      currency,
      openingBalance: opening.amount,
      closingBalance: closing.amount,
      dateFrom: from,
      dateTo: to,
      entries,
    };
  });
}
