import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A local stand-in for Fio banka's REST API (no network here), answering the format the bank
 * publishes (FIO API Bankovnictví, "Struktura formátu JSON": `accountStatement.info` with the
 * account and the period's balances, and numbered columns per movement) at
 * `/v1/rest/periods/{token}/{from}/{to}/transactions.json`. A test sets the movements, makes the
 * bank refuse (409 as for a token called too often, 500 as for a token it does not know), answer
 * garbage or an answer that does not balance, and reads the calls made.
 */

export const FIO_TOKEN = 'Xk3f9QpR2mT7vW1yZ8aB4cD6eF0gH5jL3nP9qS2uV7wX1zA4bC8dE6fG0hJ2kM5n';
export const FIO_ACCOUNT = { accountId: '2701000002', bankId: '2010', iban: 'CZ9220100000002701000002', currency: 'CZK' };

export type FioMovement = { id: number; day: string; amount: number; vs?: string; account?: string; bank?: string; name?: string; message?: string; type?: string };

export interface FioBank {
  url: string;
  mode: 'ok' | 'conflict' | 'unauthorised' | 'garbage' | 'unbalanced';
  opening: number;
  movements: FioMovement[];
  calls: string[];
  close(): Promise<void>;
}

export async function startFioBank(): Promise<FioBank> {
  const bank = { mode: 'ok' as FioBank['mode'], opening: 1000, movements: [] as FioMovement[], calls: [] as string[] };
  const answer = (from: string, to: string) => {
    const sum = bank.movements.reduce((s, m) => s + Math.round(m.amount * 100), 0) / 100;
    const col = (id: number, name: string, value: unknown) => (value === undefined ? null : { value, name, id });
    return {
      accountStatement: {
        info: {
          ...FIO_ACCOUNT,
          bic: 'FIOBCZPPXXX',
          openingBalance: bank.opening,
          closingBalance: Math.round((bank.opening + sum + (bank.mode === 'unbalanced' ? 1 : 0)) * 100) / 100,
          dateStart: `${from}+0100`,
          dateEnd: `${to}+0100`,
          yearList: null,
          idList: null,
          idFrom: bank.movements[0]?.id ?? null,
          idTo: bank.movements.at(-1)?.id ?? null,
          idLastDownload: null,
        },
        transactionList: {
          transaction: bank.movements.map((m) => ({
            column22: col(22, 'ID pohybu', m.id),
            column0: col(0, 'Datum', `${m.day}+0100`),
            column1: col(1, 'Objem', m.amount),
            column14: col(14, 'Měna', 'CZK'),
            column2: col(2, 'Protiúčet', m.account),
            column10: col(10, 'Název protiúčtu', m.name),
            column3: col(3, 'Kód banky', m.bank),
            column12: col(12, 'Název banky', m.bank ? 'Fio banka, a.s.' : undefined),
            column4: null,
            column5: col(5, 'VS', m.vs),
            column6: null,
            column7: col(7, 'Uživatelská identifikace', m.message),
            column16: col(16, 'Zpráva pro příjemce', m.message),
            column8: col(8, 'Typ', m.type ?? 'Bezhotovostní příjem'),
            column9: null,
            column18: null,
            column25: null,
            column26: null,
            column17: col(17, 'ID pokynu', m.id + 500),
          })),
        },
      },
    };
  };
  const server: Server = createServer((req, res) => {
    const m = /^\/v1\/rest\/periods\/([^/]+)\/(\d{4}-\d{2}-\d{2})\/(\d{4}-\d{2}-\d{2})\/transactions\.json$/.exec(req.url ?? '');
    bank.calls.push(req.url ?? '');
    if (!m) return void res.writeHead(404).end();
    if (bank.mode === 'conflict') return void res.writeHead(409, { 'content-type': 'text/html' }).end('<html>Conflict</html>');
    if (bank.mode === 'unauthorised' || decodeURIComponent(m[1]) !== FIO_TOKEN) return void res.writeHead(500, { 'content-type': 'text/html' }).end('<html>Internal error</html>');
    if (bank.mode === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"accountStatement":{"info":');
    res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' }).end(JSON.stringify(answer(m[2], m[3])));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(bank, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/rest`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}
