import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { CONTAINER_LABEL, IMAGE_TAG } from './container-stack.js';

/*
 * What the images promise a team that deploys them: each process in an image of its own that
 * holds only its bundle and what it imports, runs as a user without privileges and reports its
 * health; together, behind the gateway container, they do a user's work end to end: a posted
 * invoice printed by the sales container's own Chromium and booked by the accounting container
 * from the NATS container's stream.
 */

const PROCESSES = ['gateway', 'sales', 'purchase', 'finance', 'accounting', 'settings'] as const;
const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8' }).trim();
/** The stack's running container of a process (a new container would copy the whole image under vfs). */
const containerOf = (name: string) => docker('ps', '--filter', `label=${CONTAINER_LABEL}=${name}`, '--format', '{{.ID}}');
const inContainer = (name: string, ...cmd: string[]) => docker('exec', containerOf(name), ...cmd);

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

describe('the images', () => {
  it.each(PROCESSES)('%s: its own bundle only, a user without privileges, a health check', (name) => {
    const image = `ledgerline/${name}:${IMAGE_TAG}`;
    const config = JSON.parse(docker('image', 'inspect', '--format', '{{json .Config}}', image));
    expect(config.User).toBe('10001:10001');
    expect(config.Healthcheck.Test.join(' ')).toContain('/healthz');
    // the stack's container of the image runs it as that user, with only its own files
    expect(docker('inspect', '--format', '{{.Config.Image}}', containerOf(name))).toBe(image);
    expect(inContainer(name, 'id', '-u')).toBe('10001');
    const bundles = inContainer(name, 'ls', '/app/dist').split('\n').filter((f) => f.endsWith('.mjs'));
    expect(bundles).toContain(`${name}.mjs`);
    for (const other of PROCESSES.filter((p) => p !== name)) expect(bundles).not.toContain(`${other}.mjs`);
    const modules = inContainer(name, 'ls', '/app/node_modules').split('\n');
    // no build or test tools, and no workspace sources: they are bundled
    for (const dev of ['vitest', 'tsx', 'typescript', 'esbuild', 'turbo', 'testcontainers', '@ledgerline']) expect(modules).not.toContain(dev);
    // the third-party packages are in the bundle (decision 257): the image holds only those that
    // read files of their own, the browser driver for sales and the docs page's assets for the gateway
    expect(modules.includes('playwright-core')).toBe(name === 'sales');
    expect(modules.includes('swagger-ui-dist')).toBe(name === 'gateway');
    for (const bundled of ['pg', 'zod', '@mikro-orm', 'knex', 'hono', '@nats-io']) expect(modules).not.toContain(bundled);
    // the process runs with the flags `npm start` gives it: its old-space cap and the memory reducer off (decision 262)
    const commands = inContainer(name, 'sh', '-c', "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done").split('\n');
    const own = commands.find((c) => c.includes(`dist/${name}.mjs`));
    expect(own).toMatch(/--max-old-space-size=\d+/);
    expect(own).toContain('--no-memory-reducer');
  });

  it('every container of the stack is healthy', async () => {
    const rowsNow = () => docker('ps', '--filter', `label=${CONTAINER_LABEL}`, '--format', '{{.Label "' + CONTAINER_LABEL + '"}} {{.Status}}').split('\n');
    // a health status is the last checks' verdict: a check that timed out while the two cores were
    // busy with the other tests marks a serving container unhealthy until its next check passes,
    // so the stack is looked at until every container is healthy, within a minute
    let rows = rowsNow();
    for (const until = Date.now() + 60_000; Date.now() < until && !rows.every((r) => /\(healthy\)/.test(r)); rows = rowsNow()) await new Promise((r) => setTimeout(r, 2_000));
    expect(rows.map((r) => r.split(' ')[0]).sort()).toEqual(['accounting', 'finance', 'gateway', 'nats', 'postgres', 'purchase', 'sales', 'settings']);
    for (const row of rows) expect(row, row).toMatch(/\(healthy\)/);
  }, 90_000);

  it('an invoice posted through the gateway container is printed by the sales container and booked by the accounting container', async () => {
    const created = await stack.api('/v1/sales/invoices', {
      method: 'POST',
      json: {
        customer: { business_name: 'Odběratel s.r.o.', reg_no: '27082440', vat_no: 'CZ27082440', address: { address1: 'Na Příkopě 1', city: 'Praha', postal_code: '110 00', country: 'CZ' } },
        currency: 'CZK',
        date_issued: '2026-11-20',
        date_due: '2026-12-04',
        items: [{ title: 'Konzultace', qty: 2, rate: 1234.56, taxes: [{ tax_code: 'S21', tax_name: 'DPH 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 }] }],
      },
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const invoice = await created.json();
    expect(invoice.total_amount).toBe(2987.64);

    const pdf = await stack.api(`/v1/sales/invoices/${invoice.id}/pdf`);
    expect(pdf.status).toBe(200);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'll-containers-')), 'invoice.pdf');
    writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toContain(invoice.no);
    expect(text).toMatch(/2\s?987,64/);

    const entry = await eventually(async () => {
      const page = await (await stack.api('/v1/accounting/transactions?take=50')).json();
      return page.entities?.find((t: { type: string; source?: { id: number } }) => t.type === 'sales_invoice' && t.source?.id === invoice.id);
    }, 20_000);
    const rows = entry.rows.map((r: { debit?: number; credit?: number; gl_account: { number: string } }) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit!.toFixed(2)}`)).sort();
    expect(rows).toEqual(['Cr 343 518.52', 'Cr 604 2469.12', 'Dr 311 2987.64']);
  });
});
