import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import pg from 'pg';
import { S3Store } from '@ledgerline/posted-documents';
import { DATABASE_URL, startStack, type Stack } from '../support/stack.js';
import { expectOk } from '../support/assertions.js';
import { invoiceBody } from '../sales/helpers.js';
import { billBody, expectProblem } from './fixtures.js';

/*
 * Attachments in an S3-compatible store (decision 210): with ATTACHMENT_STORE=s3 the bytes go to
 * the bucket under a key of their own, signed with Signature Version 4, and the row keeps the key;
 * the API answers the same. Tested against s3rver, a local S3-compatible server (it knows the
 * access key but does not check Version 4 signatures; the signing is checked against Amazon's
 * published example in attachment-store.test.ts).
 */

const PDF = readFileSync(path.join(import.meta.dirname, '../fixtures/attachments/shared-mime-info-spec.pdf'));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const dir = mkdtempSync(path.join(tmpdir(), 'll-s3-'));
let s3: { run(): Promise<{ port: number }>; close(): Promise<void> };
let stack: Stack;
let store: S3Store;
let endpoint = '';

beforeAll(async () => {
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: 'ledgerline-files' }] });
  const { port } = await s3.run();
  endpoint = `http://127.0.0.1:${port}`;
  const settings = { endpoint, bucket: 'ledgerline-files', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  store = new S3Store(settings);
  stack = await startStack({
    services: ['sales', 'purchase'],
    env: { ATTACHMENT_STORE: 's3', S3_ENDPOINT: endpoint, S3_BUCKET: settings.bucket, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' },
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ok = expectOk;
const form = (bytes: Buffer, name: string) => {
  const f = new FormData();
  f.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name);
  return f;
};
async function storageKey(service: 'sales' | 'purchase', table: string, id: number): Promise<{ key: string | null; inline: boolean }> {
  const db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}${service}`) });
  await db.connect();
  try {
    const { rows } = await db.query(`select storage_key, content is not null as inline from ${table} where id = $1`, [id]);
    return { key: rows[0].storage_key, inline: rows[0].inline };
  } finally {
    await db.end();
  }
}

describe('attachments in an S3-compatible store', () => {
  it('keeps the bytes in the bucket, answers them as stored, and removes the object with the file', async () => {
    for (const [base, service, table, doc] of [
      ['purchase/bills', 'purchase', 'purchase_document_attachments', await ok(await stack.api('/v1/purchase/bills', { method: 'POST', json: billBody() }))],
      ['sales/invoices', 'sales', 'sales_document_attachments', await ok(await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() }))],
    ] as const) {
      const kept = await ok(await stack.api(`/v1/${base}/${doc.id}/attachments`, { method: 'POST', body: form(PDF, 'scan.pdf') }));
      expect(kept).toMatchObject({ content_type: 'application/pdf', size: PDF.length, sha256: sha256(PDF) });
      const { key, inline } = await storageKey(service, table, kept.id);
      expect(inline).toBe(false);
      expect(key).toMatch(/^attachments\/\d+\/[0-9a-f-]{36}$/);
      // the object itself, read from the bucket with a signed request
      expect(sha256(await store.get(key!))).toBe(sha256(PDF));
      const got = await stack.api(`/v1/${base}/${doc.id}/attachments/${kept.id}`);
      expect(sha256(Buffer.from(await got.arrayBuffer()))).toBe(sha256(PDF));

      await ok(await stack.api(`/v1/${base}/${doc.id}/attachments/${kept.id}`, { method: 'DELETE' }));
      await expect(store.get(key!)).rejects.toMatchObject({ status: 502 });
    }
  });

  it('the invoice e-mail attaches a file kept in the bucket', async () => {
    const invoice = await ok(await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() }));
    const kept = await ok(await stack.api(`/v1/sales/invoices/${invoice.id}/attachments`, { method: 'POST', body: form(PDF, 'order.pdf') }));
    const sent = await ok(await stack.api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { to: 'ap@acme.example', include_attachment: false, attachment_ids: [kept.id] } }));
    expect(sent.success).toBe(true);
    const [record] = await ok(await stack.api('/v1/CRM/emails?take=1'));
    expect(record.attachments).toEqual([{ id: 1, file_name: 'order.pdf', binary_content: null }]);
  });

  it('a bucket that refuses or a store that is down is a 502 or 503 and keeps nothing', async () => {
    const unknownKey = new S3Store({ endpoint, bucket: 'ledgerline-files', region: 'us-east-1', accessKeyId: 'NOT-A-KEY', secretAccessKey: 'x' });
    await expect(unknownKey.put('attachments/1/x', PDF, 'application/pdf')).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
    const bill = await ok(await stack.api('/v1/purchase/bills', { method: 'POST', json: billBody() }));
    await s3.close();
    try {
      await expectProblem(await stack.api(`/v1/purchase/bills/${bill.id}/attachments`, { method: 'POST', body: form(PDF, 'scan.pdf') }), 503, 'service_unavailable');
      expect((await ok(await stack.api(`/v1/purchase/bills/${bill.id}/attachments`))).total).toBe(0);
    } finally {
      s3 = new S3rver({ address: '127.0.0.1', port: Number(new URL(endpoint).port), silent: true, directory: dir, configureBuckets: [{ name: 'ledgerline-files' }] });
      await s3.run();
    }
  });
});
