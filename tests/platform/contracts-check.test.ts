import { beforeAll, describe, expect, it } from 'vitest';
import { breakingChanges, type BreakingChange } from '../../scripts/contracts/breaking-changes.js';
import { RELEASED_DIR, currentContracts, readContracts, type Contracts } from '../../scripts/contracts/released-contracts.js';
import { comparableOpenApi } from '../../scripts/contracts/comparable-openapi.js';

/*
 * `npm run contracts:check`: each kind of breaking change a team or an integration could be hit
 * by fails it, and additive changes pass. The "release" here is the current contracts; each case
 * changes a copy the way a careless commit would.
 */

type Json = Record<string, any>;
let release: Contracts;

beforeAll(() => {
  release = currentContracts();
});

const PAYMENT_MATCHED = 'com.ledgerline.finance.payment.matched.v1';

function changed(edit: (c: { openapi: Json; asyncapi: Json; events: Record<string, Json> }) => void): Contracts {
  const copy = structuredClone(release) as { openapi: Json; asyncapi: Json; events: Record<string, Json> };
  edit(copy);
  return copy;
}
const schemas = (c: { openapi: Json }) => c.openapi.components.schemas;
const eventData = (c: { events: Record<string, Json> }) => c.events[PAYMENT_MATCHED].definitions.PaymentMatchedEventData;
const where = (found: BreakingChange[]) => found.map((b) => `${b.contract} ${b.where}`);

describe('contracts:check', () => {
  it('finds nothing between the released contracts in the repository and the code (cut a release, or make the change additive)', () => {
    expect(breakingChanges(readContracts(RELEASED_DIR), release).map((b) => `${b.contract} ${b.where}: ${b.description}`)).toEqual([]);
  });

  it('passes additive changes: a new endpoint, response field, optional request field, response enum value, event field, event and scope', () => {
    const after = changed((c) => {
      c.openapi.components.securitySchemes.oauth2.flows.clientCredentials.scopes['reports:read'] = 'Read reports';
      c.openapi.paths['/v1/sales/invoices/{id}/notes'] = { get: { operationId: 'listNotes', responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } } } };
      schemas(c).Invoice.properties.internal_reference = { type: 'string' };
      schemas(c).InvoiceRequest.properties.internal_reference = { type: 'string' };
      schemas(c).Invoice.properties.payment_status.enum.push('written_off');
      eventData(c).properties.bank_reference = { type: 'string' };
      const voided = 'com.ledgerline.sales.invoice.voided.v1';
      c.asyncapi.components.messages.SalesInvoiceVoided = { ...c.asyncapi.components.messages.SalesInvoicePosted, name: 'sales.invoice.voided', 'x-cloudevents-type': voided };
      c.asyncapi.channels.SalesInvoiceVoided = { address: 'sales.invoice.voided.{orgId}', messages: { SalesInvoiceVoided: { $ref: '#/components/messages/SalesInvoiceVoided' } } };
      c.events[voided] = { type: 'object' };
    });
    expect(breakingChanges(release, after)).toEqual([]);
    // a scope taken away is not additive: credentials holding it lose what it granted
    const narrowed = changed((c) => delete c.openapi.components.securitySchemes.oauth2.flows.clientCredentials.scopes['sales:read']);
    expect(breakingChanges(release, narrowed)).not.toEqual([]);
  });

  it('passes documentation: a re-recorded example, a new tag before others, a reworded summary', () => {
    const after = changed((c) => {
      const post = c.openapi.paths['/v1/sales/invoices'].post;
      post.responses['200'].content['application/json'].example.created_at = '2030-01-01T00:00:00.000Z';
      post.summary = 'Issue an invoice';
      c.openapi.tags.unshift({ name: 'Exchange rates', description: 'Rates' });
    });
    expect(breakingChanges(release, after)).toEqual([]);
    // a schema's own field called `title` or `description` is still a field
    const gone = changed((c) => delete schemas(c).BankTransaction.properties.description);
    expect(where(breakingChanges(release, gone)).some((w) => w.endsWith('/properties/description'))).toBe(true);
  });

  const cases: Array<[string, (c: { openapi: Json; asyncapi: Json; events: Record<string, Json> }) => void, RegExp]> = [
    ['a path removed', (c) => delete c.openapi.paths['/v1/sales/credit-notes/{id}'], /^openapi \/paths\/~1v1~1sales~1credit-notes~1\{id\}\/(get|put|delete)$/],
    ['an operation removed', (c) => delete c.openapi.paths['/v1/sales/invoices'].get, /^openapi \/paths\/~1v1~1sales~1invoices\/get$/],
    ['an optional response field removed', (c) => delete schemas(c).Invoice.properties.bank_account, /^openapi \/paths\/~1v1~1sales~1invoices\/post\/responses\/200\/.*\/properties\/bank_account$/],
    [
      'a required response field removed',
      (c) => {
        delete schemas(c).Invoice.properties.amount_due;
        schemas(c).Invoice.required = schemas(c).Invoice.required.filter((k: string) => k !== 'amount_due');
      },
      /\/properties\/amount_due$/,
    ],
    ['a response enum value removed', (c) => schemas(c).Invoice.properties.payment_status.enum.pop(), /\/properties\/payment_status\/enum\/3$/],
    ['a request field made required', (c) => schemas(c).InvoiceRequest.required.push('counter_id'), /^openapi \/paths\/~1v1~1sales~1invoices\/post\/requestBody\/.*\/required\/\d+$/],
    [
      'a request field added as required',
      (c) => {
        schemas(c).InvoiceRequest.properties.cost_centre = { type: 'string' };
        schemas(c).InvoiceRequest.required.push('cost_centre');
      },
      /\/requestBody\/.*\/properties\/cost_centre$/,
    ],
    ['a request field no longer nullable (type narrowed)', (c) => (schemas(c).InvoiceRequest.properties.counter_id.anyOf = [schemas(c).InvoiceRequest.properties.counter_id.anyOf[0]]), /\/requestBody\/.*\/properties\/counter_id\/anyOf\/1$/],
    ['a request number narrowed to an integer', (c) => (schemas(c).InvoiceRequest.properties.currency_coef.anyOf[0].type = 'integer'), /\/properties\/currency_coef\/anyOf\/0\/type$/],
    ['a query parameter made required', (c) => (c.openapi.paths['/v1/sales/invoices'].get.parameters.find((p: Json) => p.name === 'search').required = true), /^openapi \/paths\/~1v1~1sales~1invoices\/get\/parameters\/\d+\/required$/],
    ['an event field removed', (c) => delete eventData(c).properties.payout_id, new RegExp(`^${PAYMENT_MATCHED.replace(/\./g, '\\.')} /properties/payout_id$`)],
    ['an event field retyped', (c) => (eventData(c).properties.payment_id = { type: 'string', description: 'Id of the bank transaction or the payout line' }), /finance\.payment\.matched\.v1 \/properties\/payment_id\/type$/],
    ['an event enum value removed', (c) => eventData(c).properties.source.enum.pop(), /finance\.payment\.matched\.v1 \/properties\/source\/enum\/1$/],
    ['a subject renamed', (c) => (c.asyncapi.channels.FinancePaymentMatched.address = 'finance.payment.applied.{orgId}'), /^asyncapi \/channels \(com\.ledgerline\.finance\.payment\.matched\.v1\)$/],
    [
      'an event version no longer published',
      (c) => {
        delete c.asyncapi.channels.FinancePaymentMatched;
        delete c.events[PAYMENT_MATCHED];
      },
      /^asyncapi \/components\/messages \(com\.ledgerline\.finance\.payment\.matched\.v1\)$/,
    ],
  ];

  it.each(cases)('fails on %s', (_what, edit, expected) => {
    const found = breakingChanges(release, changed(edit));
    expect(where(found).some((w) => expected.test(w)), where(found).join('\n')).toBe(true);
  });

  it('lets an event version go once its sunset has passed, not before', () => {
    const released = changed((c) => {
      c.asyncapi.components.messages.FinancePaymentMatched['x-sunset'] = '2027-06-30';
      c.asyncapi.components.messages.FinancePaymentMatched.deprecated = true;
    });
    const gone = changed((c) => {
      delete c.asyncapi.channels.FinancePaymentMatched;
      delete c.events[PAYMENT_MATCHED];
    });
    expect(where(breakingChanges(released, gone, '2027-06-30'))).toEqual([`asyncapi /components/messages (${PAYMENT_MATCHED})`, `${PAYMENT_MATCHED} /`]);
    expect(breakingChanges(released, gone, '2027-07-01')).toEqual([]);
  });

  it('compares only what can differ: paths whose item and every component they reach are unchanged are left out, examples too', () => {
    const after = changed((c) => {
      delete schemas(c).Invoice.properties.bank_account;
      c.openapi.paths['/v1/sales/invoices'].post.responses['200'].content['application/json'].example = { changed: true };
    });
    const { released, current } = comparableOpenApi(release.openapi, after.openapi);
    const kept = Object.keys(current.paths as Json);
    // every path that reaches Invoice (directly or through another schema) stays, the rest go
    expect(kept).toContain('/v1/sales/invoices');
    expect(kept).toContain('/v1/sales/invoices/{id}');
    expect(kept).not.toContain('/v1/settings/organisation');
    expect(kept).not.toContain('/v1/purchase/bills');
    expect(Object.keys(released.paths as Json)).toEqual(kept);
    expect(JSON.stringify(current)).not.toContain('"example"');
    expect((current.components as Json).schemas.Invoice).toBeDefined();
    expect((current.components as Json).schemas.VendorBill).toBeUndefined();
    // a field a schema calls `example` is a field, not documentation
    const named = changed((c) => (schemas(c).Invoice.properties.example = { type: 'string' }));
    expect((comparableOpenApi(release.openapi, named.openapi).current.components as Json).schemas.Invoice.properties.example).toEqual({ type: 'string' });
    // the same document leaves nothing to compare
    expect(Object.keys(comparableOpenApi(release.openapi, release.openapi).current.paths as Json)).toEqual([]);
  });
});
