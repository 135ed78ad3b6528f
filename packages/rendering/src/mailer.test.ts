import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Mailer, parseAddressList } from './mailer.js';
import { formatPercent, formatMoney, formatDate } from './locale.js';

describe('parseAddressList', () => {
  it('splits on , and ; outside quotes, keeps display names, reports bad entries', () => {
    expect(parseAddressList('a@x.cz, "Novák, Jan" <jan@y.cz>; c@z.example')).toEqual({
      addresses: ['a@x.cz', '"Novák, Jan" <jan@y.cz>', 'c@z.example'],
      invalid: [],
    });
    expect(parseAddressList('a@x.cz, not-an-address, b@@x.cz').invalid).toEqual(['not-an-address', 'b@@x.cz']);
    expect(parseAddressList('x@y.cz\r\nBcc: z@q.cz').invalid.length).toBe(1);
    expect(parseAddressList(null)).toEqual({ addresses: [], invalid: [] });
  });
});

describe('Mailer without SMTP_URL', () => {
  it('writes the message as an .eml file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mail-'));
    try {
      const mailer = new Mailer({ mailDir: dir });
      const out = await mailer.send({ from: 'a@x.cz', to: ['b@y.cz'], bcc: ['c@z.cz'], subject: 'Faktura FV1', text: 'Dobrý den', attachments: [{ filename: 'FV1.pdf', content: Buffer.from('%PDF-1.4'), contentType: 'application/pdf' }] });
      expect(out.status).toBe('written');
      const [file] = await readdir(dir);
      expect(file).toMatch(/\.eml$/);
      const eml = await readFile(path.join(dir, file), 'utf8');
      expect(eml).toContain('Subject: Faktura FV1');
      expect(eml).toContain('To: b@y.cz');
      expect(eml).toContain('Bcc: c@z.cz');
      expect(eml).toContain('filename=FV1.pdf');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('formatting', () => {
  it('formats percent, money and dates per culture from decimal strings', () => {
    expect(formatPercent(21, 'cs-CZ').replace(/\u00a0/g, ' ')).toBe('21 %');
    expect(formatPercent(12.5, 'en-US')).toBe('12.5%');
    expect(formatMoney('0.1', 'en-US', 'USD', 2)).toBe('$0.10');
    expect(formatMoney(-5, 'cs-CZ', 'CZK', 0).replace(/\u00a0/g, ' ')).toBe('-5 Kč');
    expect(formatDate('2026-01-05', 'sk-SK').replace(/\u00a0/g, ' ')).toBe('5. 1. 2026');
  });
});
