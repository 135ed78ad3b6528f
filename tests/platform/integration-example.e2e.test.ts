import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { readEvents } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * The runnable example of docs/integrations.md: a durable pull consumer filtered to one
 * organisation reads that organisation's invoices and no other's, and a second run with the same
 * durable and the same handled-id file handles nothing twice.
 */
const SCRIPT = path.resolve(import.meta.dirname, '../../examples/integration/consume-events.mjs');
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
}, 60_000);
afterAll(async () => stack?.close());

const run = (org: number, seenFile: string) =>
  promisify(execFile)('node', [SCRIPT], {
    env: {
      ...process.env,
      NATS_URL: stack.env.NATS_URL,
      NATS_SUBJECT_PREFIX: stack.env.NATS_SUBJECT_PREFIX,
      ORG_ID: String(org),
      STREAM: 'SALES',
      SEEN_FILE: seenFile,
      IDLE_EXIT_MS: '1500',
    },
    timeout: 30_000,
  });

describe('examples/integration/consume-events.mjs', () => {
  it("reads one organisation's events, once", async () => {
    const other = await secondOrganisation(stack);
    const mine = await (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
    const theirs = await (await stack.api('/v1/sales/invoices', { method: 'POST', key: other.key, json: invoiceBody() })).json();
    await eventually(async () => (await readEvents(stack, 'sales', 'SALES', 'sales.invoice.posted')).length >= 2, 5000);

    const seenFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'ledgerline-example-')), 'seen.txt');
    const first = await run(1, seenFile);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`sales\\.invoice\\.posted\\.1 [0-9a-f-]{36} ${mine.no} ${mine.total_amount} CZK$`));
    expect(first.stdout).not.toContain(`.${other.orgId} `);
    expect(theirs.no).toBeTruthy();

    // the durable remembers where it was; nothing is handled again
    const second = await run(1, seenFile);
    expect(second.stdout).toBe('');
  }, 60_000);
});
