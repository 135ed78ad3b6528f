import type { Dec } from '@ledgerline/service-kit';
import { EU_COUNTRIES, taxCategoryRow, type SupplyKind, type TaxCategory } from '@ledgerline/core/tax-category';

/**
 * VAT reporting fields of ledger tax rows, Czech defaults (architecture §9): the VAT return rows, the
 * control-statement section and the EC sales list code of one tax line of a document.
 */

export { EU_COUNTRIES, type SupplyKind };

/** Above this document total (incl. VAT, legal currency) a domestic line is reported in A.4 / B.2. */
export const CONTROL_STATEMENT_THRESHOLD = 10_000;

export interface VatLineContext {
  side: 'sale' | 'purchase';
  orgCountry: string;
  partnerCountry?: string | null;
  partnerVatNo?: string | null;
  /** Document total including VAT in the legal currency (absolute value is compared). */
  totalLeg: Dec;
  rate: Dec;
  /** The line's VAT category (`@ledgerline/core/tax-category`): decided once, read here as the document stored it. */
  category: TaxCategory;
  supply: SupplyKind;
  /** A credit note lands in the control-statement section of the document it credits. */
  controlStatementOverride?: string | null;
}

export interface VatReportingFields {
  tax_return_base_in: string | null;
  tax_return_base_out: string | null;
  tax_return_amount_claim: string | null;
  tax_return_amount_out: string | null;
  tax_control_statement: string | null;
  tax_eu_sales_report: string | null;
}

/** A row that reports nothing to the VAT return, control statement or EU sales list. */
export const NO_VAT_REPORTING: VatReportingFields = {
  tax_return_base_in: null,
  tax_return_base_out: null,
  tax_return_amount_claim: null,
  tax_return_amount_out: null,
  tax_control_statement: null,
  tax_eu_sales_report: null,
};

/** 21 % (and any rate of 20 % or more) is the basic rate; lower positive rates are reduced. */
export const BASIC_RATE_FLOOR = 20;
function isBasicRate(rate: Dec): boolean {
  return rate.gte(BASIC_RATE_FLOOR);
}

export type PartnerLocation = 'domestic' | 'eu' | 'third_country';

export function partnerLocation(orgCountry: string, partnerCountry?: string | null): PartnerLocation {
  const p = (partnerCountry ?? '').trim().toUpperCase();
  if (!p || p === orgCountry.toUpperCase()) return 'domestic';
  return EU_COUNTRIES.has(p) ? 'eu' : 'third_country';
}

/**
 * Where a line is reported, by its category, the partner's place and the rate. The partner's place
 * decides first for a sale abroad (a supply to a VAT-registered buyer in another member state, or
 * one the line states intra-EU (K), is rows 20/21 whatever its code; outside the EU, row 22); at
 * home the category does: reverse charge (AE) row 25 and A.1, a category on which no VAT is
 * charged (Z, E, O, K, G) nothing, a taxed one rows 1/2 and A.4/A.5.
 */
export function vatReportingFields(ctx: VatLineContext): VatReportingFields {
  const where = partnerLocation(ctx.orgCountry, ctx.partnerCountry);
  const large = ctx.totalLeg.abs().gt(CONTROL_STATEMENT_THRESHOLD);
  const hasVatId = !!ctx.partnerVatNo?.trim();
  const basic = isBasicRate(ctx.rate);
  const { reverseCharge, noVatCharged } = taxCategoryRow(ctx.category);
  const override = (cs: string | null) => (ctx.controlStatementOverride !== undefined && ctx.controlStatementOverride !== null ? ctx.controlStatementOverride : cs);

  if (ctx.side === 'sale') {
    if (where === 'domestic' || (where === 'eu' && !hasVatId && ctx.category !== 'K')) {
      if (reverseCharge) return { ...NO_VAT_REPORTING, tax_return_base_out: '25', tax_control_statement: override('A.1') };
      if (ctx.rate.isZero() || noVatCharged) return { ...NO_VAT_REPORTING, tax_control_statement: null };
      const row = basic ? '1' : '2';
      return {
        ...NO_VAT_REPORTING,
        tax_return_base_out: row,
        tax_return_amount_out: row,
        tax_control_statement: override(large && hasVatId ? 'A.4' : 'A.5'),
      };
    }
    if (where === 'eu') {
      return ctx.supply === 'goods'
        ? { ...NO_VAT_REPORTING, tax_return_base_out: '20', tax_eu_sales_report: '0' }
        : { ...NO_VAT_REPORTING, tax_return_base_out: '21', tax_eu_sales_report: '3' };
    }
    return { ...NO_VAT_REPORTING, tax_return_base_out: '22' };
  }

  // purchase
  if (reverseCharge) {
    // what the recipient self-assesses on a supply from abroad: its output row, the deduction,
    // and A.2 of the control statement (§ 108(1)(b), (c))
    const selfAssessed = (out: string): VatReportingFields => ({
      ...NO_VAT_REPORTING,
      tax_return_base_out: out,
      tax_return_amount_out: out,
      tax_return_base_in: basic ? '43' : '44',
      tax_return_amount_claim: basic ? '43' : '44',
      tax_control_statement: override('A.2'),
    });
    if (where === 'eu') return selfAssessed(ctx.supply === 'goods' ? (basic ? '3' : '4') : basic ? '5' : '6');
    // from outside the EU: the other supplies with reverse charge, rows 12 / 13
    if (where === 'third_country') return selfAssessed(basic ? '12' : '13');
    return {
      ...NO_VAT_REPORTING,
      tax_return_base_out: basic ? '10' : '11',
      tax_return_amount_out: basic ? '10' : '11',
      tax_return_base_in: basic ? '43' : '44',
      tax_return_amount_claim: basic ? '43' : '44',
      tax_control_statement: override('B.1'),
    };
  }
  if (ctx.rate.isZero() || ctx.category === 'E' || ctx.category === 'O') return NO_VAT_REPORTING;
  const claim = basic ? '40' : '41';
  return {
    ...NO_VAT_REPORTING,
    tax_return_base_in: claim,
    tax_return_amount_claim: claim,
    tax_control_statement: where === 'domestic' ? override(large ? 'B.2' : 'B.3') : null,
  };
}
