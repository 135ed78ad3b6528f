import { z } from 'zod';
import { centAmount, id, isoDate, isoDateTime, money, nullish, shortText } from './common.js';
import { pagedEnvelope, pagingQuery, repeatedParam } from './paging.js';

/*
 * Fixed assets (issue 77): the register, the Czech tax depreciation plan (§31/§32 of the Income
 * Tax Act) and the monthly accounting depreciation the books post (Dr 551 / Cr 082).
 */

const accountNumber = z.string().regex(/^\d{3,6}$/, 'an account number of 3–6 digits');
const positiveCents = centAmount.refine((v) => v > 0, { message: 'above zero' });

export const TAX_GROUPS = [1, 2, 3, 4, 5, 6] as const;
export const FIRST_YEAR_INCREASES = [0, 10, 15, 20] as const;

export const assetTaxDepreciationSchema = z
  .object({
    group: z.union(TAX_GROUPS.map((g) => z.literal(g)) as [z.ZodLiteral<1>, z.ZodLiteral<2>, z.ZodLiteral<3>, z.ZodLiteral<4>, z.ZodLiteral<5>, z.ZodLiteral<6>]).describe('Depreciation group of annex 1 of the Income Tax Act (1–6)'),
    method: z.enum(['straight_line', 'accelerated']).describe('straight_line (§31) or accelerated (§32)'),
    first_year_increase: nullish(z.union([z.literal(0), z.literal(10), z.literal(15), z.literal(20)])).describe('§31(1)(b)–(d): the first year increased by 10, 15 or 20 % (straight-line, groups 1–3); 0 or absent: none'),
    interrupted_years: nullish(z.array(z.int().min(1900).max(9999)).max(100)).describe('Tax years the depreciation is interrupted (§26(8)): nothing claimed, the plan goes on after them'),
  })
  .meta({ id: 'AssetTaxDepreciation', description: 'How the asset is depreciated for income tax' });

export const assetAccountingDepreciationSchema = z
  .object({
    method: z.literal('straight_line'),
    months: z.int().min(1).max(1200).describe('Months over which the cost is depreciated, from the month after date_in_use'),
  })
  .meta({ id: 'AssetAccountingDepreciation', description: "The books' depreciation plan" });

export const assetImprovementSchema = z
  .object({
    date: isoDate.describe('When the technical improvement (§33) was completed'),
    amount: positiveCents.describe('What it raised the cost by'),
    description: nullish(shortText(255)),
  })
  .meta({ id: 'AssetImprovement', description: 'A technical improvement raising the cost' });

const assetFields = {
  name: shortText(255).min(1),
  inventory_number: shortText(64).min(1).describe('Unique in the organisation'),
  acquisition_cost: positiveCents.describe('The input price (vstupní cena) in the legal currency'),
  date_acquired: isoDate,
  date_in_use: isoDate.describe('Put into use (uvedení do užívání): the first tax year; accounting depreciation from the month after'),
  accounting_depreciation: assetAccountingDepreciationSchema,
  tax_depreciation: assetTaxDepreciationSchema,
};

export const assetRequestSchema = z
  .object({
    ...assetFields,
    asset_account: nullish(accountNumber).describe('Default 022'),
    accumulated_account: nullish(accountNumber).describe('Default 082'),
    expense_account: nullish(accountNumber).describe('Default 551'),
    improvements: nullish(z.array(assetImprovementSchema).max(100)),
    bill_id: nullish(id).describe('The vendor bill that booked the acquisition to 042: putting the asset into use moves its cost to the asset account (Dr 022 / Cr 042) on date_in_use'),
  })
  .meta({ id: 'AssetRequest', description: 'A fixed asset to enter into the register, or to replace whole while nothing of it is posted' });
export type AssetRequest = z.infer<typeof assetRequestSchema>;

export const taxPlanRowSchema = z.object({
  year: z.int(),
  depreciation: money.describe('Rounded up to whole crowns'),
  residual: money.describe('The tax residual price (zůstatková cena) after the year'),
  kind: z.enum(['depreciation', 'interrupted', 'disposal']).describe('disposal: the year of disposal, half the depreciation (§26(8))'),
});
export const accountingPlanRowSchema = z.object({
  period: z.string().describe('YYYY-MM'),
  depreciation: money,
  accumulated: money,
  residual: money,
});
const entryLink = z.object({ id: id, no: z.string() });

export const assetSchema = z
  .object({
    id: id,
    ...assetFields,
    asset_account: accountNumber,
    accumulated_account: accountNumber,
    expense_account: accountNumber,
    improvements: z.array(assetImprovementSchema),
    bill_id: id.nullable(),
    status: z.enum(['active', 'disposed']),
    cost: money.describe('acquisition_cost with every improvement'),
    accumulated_depreciation: money.describe('Accounting depreciation posted so far'),
    tax_plan: z.array(taxPlanRowSchema).describe('One row per tax year (§31/§32)'),
    accounting_plan: z.array(accountingPlanRowSchema).describe('One row per month; the last absorbs the rounding'),
    in_use_entry: entryLink.nullable().describe('The journal entry moving a bill-booked acquisition from 042'),
    disposal: z
      .object({ date: isoDate, kind: z.enum(['sale', 'scrapping']), residual: money.describe('The book value cleared to 541'), tax_residual: money.describe('The tax residual price, an expense of the year of disposal (§24(2)(b))'), journal_entry: entryLink })
      .nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Asset', description: 'A fixed asset with its tax and accounting depreciation plans' });
export type Asset = z.infer<typeof assetSchema>;

export const assetListQuerySchema = z.object({
  ...pagingQuery(100),
  status: repeatedParam(z.enum(['active', 'disposed'])).optional(),
});
export type AssetListQuery = z.output<typeof assetListQuerySchema>;
export const assetPageSchema = pagedEnvelope(assetSchema);

export const assetImprovementRequestSchema = assetImprovementSchema
  .extend({ bill_id: nullish(id).describe('The vendor bill that booked the improvement to 042: it is moved to the asset account (Dr 022 / Cr 042) on its date') })
  .meta({ id: 'AssetImprovementRequest', description: 'A technical improvement completed on an asset in use' });
export type AssetImprovementRequest = z.infer<typeof assetImprovementRequestSchema>;

export const assetTaxInterruptionsRequestSchema = z
  .object({ years: z.array(z.int().min(1900).max(9999)).max(100).describe('Every tax year the depreciation is interrupted (§26(8)); replaces the list') })
  .meta({ id: 'AssetTaxInterruptionsRequest', description: 'The tax years in which an asset is not depreciated for tax' });
export type AssetTaxInterruptionsRequest = z.infer<typeof assetTaxInterruptionsRequestSchema>;

export const assetDisposalRequestSchema = z
  .object({ date: isoDate.describe('The day of sale or scrapping'), kind: z.enum(['sale', 'scrapping']) })
  .meta({ id: 'AssetDisposalRequest', description: 'Sale or scrapping of an asset' });
export type AssetDisposalRequest = z.infer<typeof assetDisposalRequestSchema>;

const period = z.string().regex(/^(19|[2-9]\d)\d\d-(0[1-9]|1[0-2])$/, 'a month YYYY-MM');
export const depreciationRunRequestSchema = z.object({ period }).meta({ id: 'DepreciationRunRequest', description: "The month whose depreciation to post" });
export type DepreciationRunRequest = z.infer<typeof depreciationRunRequestSchema>;
export const depreciationRunSchema = z
  .object({
    id: id,
    period: z.string(),
    total: money,
    journal_entry: entryLink,
    lines: z.array(z.object({ asset_id: id, inventory_number: z.string(), amount: money })),
    created_at: isoDateTime,
  })
  .meta({ id: 'DepreciationRun', description: "A month's depreciation: one journal entry, Dr 551 / Cr 082 per asset" });
export type DepreciationRun = z.infer<typeof depreciationRunSchema>;
export const depreciationRunListQuerySchema = z.object({ ...pagingQuery(100) });
export const depreciationRunPageSchema = pagedEnvelope(depreciationRunSchema);

export const depreciationReportQuerySchema = z.object({ year: z.coerce.number().int().min(1900).max(9999).describe('The tax year') });
export const depreciationReportSchema = z
  .object({
    year: z.int(),
    rows: z.array(
      z.object({
        asset_id: id,
        inventory_number: z.string(),
        name: z.string(),
        tax_depreciation: money,
        tax_residual_expensed: money.describe('The tax residual price of an asset disposed of in the year'),
        accounting_depreciation: money.describe('Posted in the year (depreciation runs and disposal)'),
        accounting_residual_expensed: money.describe('The book value cleared to 541 at a disposal in the year'),
        difference: money.describe('accounting − tax (depreciation and residuals): positive adds to the tax base'),
      }),
    ),
    totals: z.object({ tax_depreciation: money, tax_residual_expensed: money, accounting_depreciation: money, accounting_residual_expensed: money, difference: money }),
  })
  .meta({ id: 'DepreciationReport', description: "A year's tax against accounting depreciation per asset: the difference an income tax return adds back" });
export type DepreciationReport = z.infer<typeof depreciationReportSchema>;
