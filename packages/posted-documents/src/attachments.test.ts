import { describe, expect, it } from 'vitest';
import { contentDisposition, sniffAttachmentType } from './attachments.js';

const b = (s: string) => Buffer.from(s, 'latin1');

describe('what an attachment is, from its bytes', () => {
  it('knows PDF, PNG, JPEG and XML by their first bytes', () => {
    expect(sniffAttachmentType(b('%PDF-1.7\n%âãÏÓ\n'))).toBe('application/pdf');
    expect(sniffAttachmentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]))).toBe('image/png');
    expect(sniffAttachmentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46]))).toBe('image/jpeg');
    expect(sniffAttachmentType(b('<?xml version="1.0"?><Invoice/>'))).toBe('application/xml');
    expect(sniffAttachmentType(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b('\r\n  <Invoice xmlns="urn:x">')]))).toBe('application/xml');
    expect(sniffAttachmentType(b('<cbc:Note>x</cbc:Note>'))).toBe('application/xml');
  });

  it('refuses what only looks close: a PNG signature cut short, HTML, a NUL inside XML, text, an executable', () => {
    expect(sniffAttachmentType(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
    expect(sniffAttachmentType(b('<!DOCTYPE html><html>'))).toBeNull();
    expect(sniffAttachmentType(b('<!-- x --><a/>'))).toBeNull();
    expect(sniffAttachmentType(b('<?xml version="1.0"?>\u0000<a/>'))).toBeNull();
    expect(sniffAttachmentType(b('%PDF'))).toBeNull();
    expect(sniffAttachmentType(b('Invoice 2026-11 total 1210 CZK'))).toBeNull();
    expect(sniffAttachmentType(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]))).toBeNull();
    expect(sniffAttachmentType(Buffer.from([0x4d, 0x5a, 0x90, 0]))).toBeNull();
    expect(sniffAttachmentType(Buffer.alloc(0))).toBeNull();
  });

  it('names the file for saving in ASCII and in UTF-8', () => {
    expect(contentDisposition('faktura č. 7 "final".pdf')).toBe(`attachment; filename="faktura _. 7 _final_.pdf"; filename*=UTF-8''faktura%20%C4%8D.%207%20%22final%22.pdf`);
  });
});
