import { describe, expect, it } from 'vitest';
import { prepareEvent } from './outbox.js';

describe('prepareEvent', () => {
  const data = { id: 7, no: 'INV1', total_amount: 121.5, items: [{ title: 'a "quoted" line', qty: 1 }] };

  it('builds the same envelope whether data is serialised here or handed over as JSON', () => {
    const ev = { subject: 'sales.invoice.posted', orgId: 3, resource: '7', id: '6f1c2c9e-0000-4000-8000-000000000001', data };
    const plain = prepareEvent('sales', ev);
    const spliced = prepareEvent('sales', ev, JSON.stringify(data));
    const a = JSON.parse(plain.json);
    const b = JSON.parse(spliced.json);
    expect({ ...b, time: a.time }).toEqual(a);
    expect(b).toMatchObject({ specversion: '1.0', id: ev.id, source: '/ledgerline/sales', type: 'com.ledgerline.sales.invoice.posted.v1', subject: '7', orgid: '3', data });
    expect(spliced).toMatchObject({ id: ev.id, subject: 'sales.invoice.posted', type: 'com.ledgerline.sales.invoice.posted.v1', orgId: 3 });
  });

  it('refuses an event without an organisation: it is published on its organisation\'s subject, so it could reach no one', () => {
    expect(() => prepareEvent('settings', { subject: 'settings.template.saved', data: {} })).toThrow(/names no organisation/);
    expect(() => prepareEvent('settings', { subject: 'settings.template.saved', orgId: 0, data: {} })).toThrow(/names no organisation/);
  });
});
