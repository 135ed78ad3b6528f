/*
 * Statement files written the way banks write them, for the tests (unit and end to end): GPC
 * records at their fixed positions, camt.053 documents of a chosen version, MT940 fields. They
 * are built from a few figures so that a test reads as the statement it imports.
 */

export interface FixtureMovement {
  amount: string; // signed, decimal point
  vs?: string;
  ks?: string;
  ss?: string;
  counterAccount?: string; // "prefix-number/bank" or "number/bank"
  name?: string;
  message?: string;
  reference?: string; // bank reference / transaction id
  date?: string; // YYYY-MM-DD
  fee?: boolean;
  reversal?: boolean;
}

export interface FixtureStatement {
  account: string;
  number: string;
  currency?: string;
  opening: string;
  closing: string;
  from: string; // YYYY-MM-DD
  to: string;
  movements: FixtureMovement[];
}

const pad = (v: string, n: number, c = '0') => v.padStart(n, c).slice(-n);
const right = (v: string, n: number) => v.padEnd(n, ' ').slice(0, n);
const ddmmyy = (d: string) => `${d.slice(8, 10)}${d.slice(5, 7)}${d.slice(2, 4)}`;
const cents = (v: string) => {
  const [w, f = ''] = v.replace('-', '').split('.');
  return `${w}${f.padEnd(2, '0')}`.replace(/^0+(?=\d)/, '');
};
const NUMERIC: Record<string, string> = { CZK: '0203', EUR: '0978', USD: '0840' };

function gpcAccount(a: string): string {
  const [main] = a.split('/');
  const [prefix, number] = main.includes('-') ? main.split('-') : ['', main];
  return `${pad(prefix, 6)}${pad(number, 10)}`;
}

/** A GPC (ABO) statement file; `extraLines` adds a 078 message record after each movement that has a message. */
export function gpcFile(s: FixtureStatement, opts: { lineEnd?: string } = {}): string {
  const eol = opts.lineEnd ?? '\r\n';
  const sign = (v: string) => (v.startsWith('-') ? '-' : '+');
  const debit = s.movements.filter((m) => m.amount.startsWith('-')).reduce((a, m) => a + Number(cents(m.amount)), 0);
  const credit = s.movements.filter((m) => !m.amount.startsWith('-')).reduce((a, m) => a + Number(cents(m.amount)), 0);
  const header =
    '074' +
    gpcAccount(s.account) +
    right('Dodavatel a.s.', 20) +
    ddmmyy(s.from) +
    pad(cents(s.opening), 14) +
    sign(s.opening) +
    pad(cents(s.closing), 14) +
    sign(s.closing) +
    pad(String(debit), 14) +
    '0' +
    pad(String(credit), 14) +
    '0' +
    pad(s.number, 3) +
    ddmmyy(s.to) +
    right('', 14);
  const lines = [header];
  s.movements.forEach((m, i) => {
    const out = m.amount.startsWith('-');
    const code = m.reversal ? (out ? '5' : '4') : out ? '1' : '2';
    const bank = m.counterAccount?.split('/')[1] ?? '0000';
    lines.push(
      '075' +
        gpcAccount(s.account) +
        gpcAccount(m.counterAccount ?? '0') +
        right(m.reference ?? String(1000 + i), 13) +
        pad(cents(m.amount), 12) +
        code +
        pad(m.vs ?? '0', 10) +
        `00${pad(bank, 4)}${pad(m.ks ?? '0', 4)}` +
        pad(m.ss ?? '0', 10) +
        ddmmyy(m.date ?? s.to) +
        right(m.name ?? '', 20) +
        '0' +
        (NUMERIC[s.currency ?? 'CZK'] ?? '0203') +
        ddmmyy(m.date ?? s.to),
    );
    if (m.message) lines.push(`078${right(m.message, 35)}${right('', 35)}`);
  });
  return lines.join(eol) + eol;
}

/** A camt.053 document (version 02 or 08) with one statement per fixture. */
export function camt053File(statements: FixtureStatement[], version: '02' | '08' = '02'): string {
  const bal = (code: string, amount: string, ccy: string, date: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${ccy}">${amount.replace('-', '')}</Amt><CdtDbtInd>${amount.startsWith('-') ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
  const party = (name: string | undefined) => (version === '08' ? `<Pty><Nm>${name}</Nm></Pty>` : `<Nm>${name}</Nm>`);
  const stmts = statements.map((s) => {
    const ccy = s.currency ?? 'CZK';
    const entries = s.movements.map((m, i) => {
      const out = m.amount.startsWith('-');
      const related = m.name || m.counterAccount
        ? `<RltdPties>${m.name ? `<${out ? 'Cdtr' : 'Dbtr'}>${party(m.name)}</${out ? 'Cdtr' : 'Dbtr'}>` : ''}${m.counterAccount ? `<${out ? 'CdtrAcct' : 'DbtrAcct'}><Id><IBAN>${m.counterAccount}</IBAN></Id></${out ? 'CdtrAcct' : 'DbtrAcct'}>` : ''}</RltdPties>`
        : '';
      const remittance = m.vs || m.message ? `<RmtInf>${m.message ? `<Ustrd>${m.message}</Ustrd>` : ''}${m.vs ? `<Strd><CdtrRefInf><Ref>${m.vs}</Ref></CdtrRefInf></Strd>` : ''}</RmtInf>` : '';
      const code = m.fee ? '<BkTxCd><Domn><Cd>ACMT</Cd><Fmly><Cd>MDOP</Cd><SubFmlyCd>CHRG</SubFmlyCd></Fmly></Domn></BkTxCd>' : '<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>DMCT</SubFmlyCd></Fmly></Domn></BkTxCd>';
      const status = version === '08' ? '<Sts><Cd>BOOK</Cd></Sts>' : '<Sts>BOOK</Sts>';
      return `<Ntry><NtryRef>${i + 1}</NtryRef><Amt Ccy="${ccy}">${m.amount.replace('-', '')}</Amt><CdtDbtInd>${out ? 'DBIT' : 'CRDT'}</CdtDbtInd>${m.reversal ? '<RvslInd>true</RvslInd>' : ''}${status}<BookgDt><Dt>${m.date ?? s.to}</Dt></BookgDt><ValDt><Dt>${m.date ?? s.to}</Dt></ValDt><AcctSvcrRef>${m.reference ?? `REF-${s.number}-${i + 1}`}</AcctSvcrRef>${code}<NtryDtls><TxDtls><Refs><EndToEndId>${m.vs ? `VS${m.vs}` : 'NOTPROVIDED'}</EndToEndId></Refs>${related}${remittance}</TxDtls></NtryDtls></Ntry>`;
    });
    return `<Stmt><Id>${s.account}-${s.number}</Id><ElctrncSeqNb>${s.number}</ElctrncSeqNb><CreDtTm>${s.to}T23:00:00</CreDtTm><FrToDt><FrDtTm>${s.from}T00:00:00</FrDtTm><ToDtTm>${s.to}T23:59:59</ToDtTm></FrToDt><Acct><Id><IBAN>${s.account}</IBAN></Id><Ccy>${ccy}</Ccy></Acct>${bal('OPBD', s.opening, ccy, s.from)}${bal('CLBD', s.closing, ccy, s.to)}${entries.join('')}</Stmt>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}"><BkToCstmrStmt><GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2026-11-21T06:00:00</CreDtTm></GrpHdr>${stmts.join('')}</BkToCstmrStmt></Document>\n`;
}

/** An MT940 file, one statement per fixture, optionally in the SWIFT envelope. */
export function mt940File(statements: FixtureStatement[], opts: { envelope?: boolean } = {}): string {
  const yymmdd = (d: string) => `${d.slice(2, 4)}${d.slice(5, 7)}${d.slice(8, 10)}`;
  const amount = (v: string) => {
    const [whole, fraction = ''] = v.replace('-', '').split('.');
    return `${whole},${fraction}`;
  };
  const bal = (tag: string, v: string, ccy: string, d: string) => `:${tag}:${v.startsWith('-') ? 'D' : 'C'}${yymmdd(d)}${ccy}${amount(v)}`;
  const blocks = statements.map((s) => {
    const ccy = s.currency ?? 'CZK';
    const lines = [`:20:${s.number}`, `:25:${s.account}`, `:28C:${s.number}/1`, bal('60F', s.opening, ccy, s.from)];
    s.movements.forEach((m, i) => {
      const out = m.amount.startsWith('-');
      const mark = m.reversal ? (out ? 'RC' : 'RD') : out ? 'D' : 'C';
      const d = m.date ?? s.to;
      lines.push(`:61:${yymmdd(d)}${d.slice(5, 7)}${d.slice(8, 10)}${mark}${amount(m.amount)}${m.fee ? 'NCHG' : 'NTRF'}${m.vs ?? 'NONREF'}//${m.reference ?? `B${s.number}${i + 1}`}`);
      // the German/Polish subfield layout: business code, ?00 booking text, ?20 purpose, ?32 name, ?38 IBAN
      const purpose = `${m.message ?? ''}${m.vs ? ` VS:${m.vs}` : ''}`.trim();
      lines.push(`:86:${m.fee ? '805' : out ? '020' : '051'}?00${m.fee ? 'OPLATA' : 'PRZELEW'}${purpose ? `?20${purpose}` : ''}${m.name ? `\n?32${m.name}` : ''}${m.counterAccount ? `?38${m.counterAccount}` : ''}`);
    });
    lines.push(bal('62F', s.closing, ccy, s.to));
    return lines.join('\r\n');
  });
  const body = blocks.join('\r\n');
  return opts.envelope ? `{1:F01BANKCZPPAXXX0000000000}{2:O9401200261120BANKCZPPAXXX00000000002611201200N}{4:\r\n${body}\r\n-}` : `${body}\r\n`;
}
