import { describe, expect, it } from 'vitest';
import { propertiesOf, propertyOfColumn } from './tables.js';

describe('column names to property names', () => {
  it('follows the ORM naming, digits included', () => {
    expect(propertyOfColumn('gl_account_number')).toBe('glAccountNumber');
    expect(propertyOfColumn('tax_rate_rc')).toBe('taxRateRc');
    expect(propertyOfColumn('address_line_2')).toBe('addressLine2');
    expect(propertyOfColumn('id')).toBe('id');
    // asked again, the cached name is the same
    expect(propertyOfColumn('gl_account_number')).toBe('glAccountNumber');
  });
  it('maps a row keeping its values as they are, nulls included', () => {
    const contact = { id: 1 };
    expect(propertiesOf({ org_id: 7, legal_currency: 'CZK', vat_no: null, contact })).toEqual({ orgId: 7, legalCurrency: 'CZK', vatNo: null, contact });
    expect(propertiesOf<{ contact: unknown }>({ contact }).contact).toBe(contact);
  });
});
