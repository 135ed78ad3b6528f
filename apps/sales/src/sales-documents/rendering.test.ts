import { describe, expect, it } from 'vitest';
import { cultureFor } from './rendering.js';

describe('the culture a document is rendered in', () => {
  const cz = { customer: { address: { country: 'CZ' } } };
  it('is the one asked for, else the document locale, else the customer preference', () => {
    expect(cultureFor('en-gb', cz, 'CZ')).toBe('en-GB');
    expect(cultureFor(undefined, { ...cz, document_locale: 'sk-SK' }, 'CZ')).toBe('sk-SK');
    expect(cultureFor(undefined, { customer: { preferred_locale: 'en-US', address: { country: 'CZ' } } }, 'CZ')).toBe('en-US');
  });

  it("then follows the customer's country (billing address first), then the organisation's, then en-US", () => {
    expect(cultureFor(undefined, cz, 'US')).toBe('cs-CZ');
    expect(cultureFor(undefined, { ...cz, billing_address: { country: 'sk' } }, 'CZ')).toBe('sk-SK');
    expect(cultureFor(undefined, { customer: { address: { country: 'DE' } } }, 'CZ')).toBe('cs-CZ');
    expect(cultureFor(undefined, { customer: {} }, 'SK')).toBe('sk-SK');
    expect(cultureFor(undefined, { customer: {} }, null)).toBe('en-US');
    expect(cultureFor(undefined, { customer: { address: { country: 'FR' } } }, 'FR')).toBe('en-US');
  });

  it('refuses what is not a language tag', () => {
    expect(() => cultureFor('not a tag!', cz, 'CZ')).toThrow(/not a language tag/);
  });
});
