import { describe, expect, it } from 'vitest';
import { sanitizeStatement } from './tracing.js';

describe('sanitizeStatement', () => {
  it('masks the literals the ORM writes into its SQL, keeping placeholders, identifiers and casts', () => {
    expect(sanitizeStatement(`select "n0".* from "number_series" as "n0" where "n0"."org_id" = 1 and "n0"."doc_type" = 'sales_invoice' limit 1`)).toBe(
      `select "n0".* from "number_series" as "n0" where "n0"."org_id" = ? and "n0"."doc_type" = ? limit ?`,
    );
    expect(sanitizeStatement(`insert into t (a, b) values ($1::numeric, 'O''Brien s.r.o.'), ($2, -12.50)`)).toBe(`insert into t (a, b) values ($1::numeric, ?), ($2, ?)`);
    expect(sanitizeStatement('select col2, t1.x from t1 where id = $12')).toBe('select col2, t1.x from t1 where id = $12');
  });

  it('bounds the text a span carries', () => {
    expect(sanitizeStatement(`select ${'a, '.repeat(2000)}b`).length).toBe(2000);
  });
});
