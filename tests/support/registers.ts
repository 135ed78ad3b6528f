import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/*
 * A local stand-in for the public registers (no network here): ARES's REST API, VIES's REST API
 * and the Czech VAT payers' SOAP service, each under its own path, answering the files of
 * tests/fixtures/registers (README there names their sources). A test can make a register slow,
 * garbled or failing, and counts what was asked.
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/registers');
export const registerFixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

export type RegisterMode = 'ok' | 'slow' | 'garbage' | 'error';

export interface RegisterServer {
  url: string;
  /** ARES_URL, VIES_URL and VAT_PAYERS_URL pointing here. */
  env: { ARES_URL: string; VIES_URL: string; VAT_PAYERS_URL: string };
  mode: Record<'ares' | 'vies' | 'vat_payers', RegisterMode>;
  asked: Array<{ register: string; key: string }>;
  /** ARES answers by IČO, VIES by VAT number (with its prefix), the VAT payers' register by DIČ digits. */
  ares: Map<string, string>;
  vies: Map<string, string>;
  vatPayers: Map<string, string>;
  close(): Promise<void>;
}

export async function startRegisterServer(): Promise<RegisterServer> {
  const state = {
    mode: { ares: 'ok', vies: 'ok', vat_payers: 'ok' } as RegisterServer['mode'],
    asked: [] as RegisterServer['asked'],
    ares: new Map([['26835746', registerFixture('ares-26835746.json')]]),
    vies: new Map([
      ['DE811569869', registerFixture('vies-de-valid.json')],
      ['SK2020411811', registerFixture('vies-sk-valid.json')],
      ['FR12345678901', registerFixture('vies-ms-unavailable.json')],
    ]),
    vatPayers: new Map([
      ['26835746', registerFixture('vat-payers-26835746.xml')],
      ['12345679', registerFixture('vat-payers-unreliable.xml')],
    ]),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const register = url.pathname.startsWith('/ares/') ? 'ares' : url.pathname.startsWith('/vies/') ? 'vies' : url.pathname.startsWith('/adis') ? 'vat_payers' : null;
      if (!register) return void res.writeHead(404).end();
      const mode = state.mode[register];
      if (mode === 'slow') return; // never answers: the caller's timeout ends it
      if (mode === 'error') return void res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body>Internal Server Error</body></html>');
      if (mode === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('<<not the format>>');
      if (register === 'ares') {
        const ico = url.pathname.split('/').pop() ?? '';
        state.asked.push({ register, key: ico });
        const found = state.ares.get(ico);
        return void res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' }).end(found ?? registerFixture('ares-not-found.json'));
      }
      if (register === 'vies') {
        const [, , , ms, , number] = url.pathname.split('/');
        state.asked.push({ register, key: `${ms}${number}` });
        const found = state.vies.get(`${ms}${number}`);
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(found ?? JSON.stringify({ isValid: false, requestDate: new Date().toISOString(), userError: 'INVALID', name: '---', address: '---', vatNumber: number }));
      }
      const dic = /<(?:\w+:)?dic>(\d+)<\/(?:\w+:)?dic>/.exec(body)?.[1] ?? '';
      state.asked.push({ register, key: dic });
      if (!req.headers.soapaction?.includes('getStatusNespolehlivyPlatceRozsireny')) return void res.writeHead(500).end('no SOAPAction');
      return void res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end(state.vatPayers.get(dic) ?? registerFixture('vat-payers-not-found.xml').replace('00006947', dic));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    env: { ARES_URL: `${url}/ares`, VIES_URL: `${url}/vies`, VAT_PAYERS_URL: `${url}/adis` },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
