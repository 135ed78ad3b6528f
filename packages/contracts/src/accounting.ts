import { z } from 'zod';
import { bankAccountSchema, contactSchema, currencyCode, fxRateSchema, glAccountSchema, id, int32, int64, isoDate, isoDateTime, longText, money, moneyAggregate, nullish, paidRecordSchema, paidRecordTypeSchema, percentRate, precision, ratio, shortText, taxNexusSchema, transactionTypeSchema, uuid } from './common.js';
import { pagedEnvelope, pagingQuery, rangeQuery, searchQuery, sortQuery, keysetPagedEnvelope, keysetPagingQuery } from './paging.js';
import { exportFormatSchema } from './purchase.js';

/*
 * The ledger and the trial balance (architecture §6). All figures of ledger rows
 * are in the legal currency; every accounting transaction balances (Σ debit = Σ credit).
 */

export const ACCOUNTING_STATUSES = ['posted', 'reversed'] as const;
export const accountingStatusSchema = z.enum(ACCOUNTING_STATUSES);

/** Fields every ledger row carries (spec: id, is_locked, debit, credit, gl_account, description). */
const ledgerRowFields = {
  id: nullish(int64),
  is_locked: nullish(z.boolean()),
  debit: money,
  credit: money,
  gl_account: glAccountSchema,
  description: nullish(longText()),
};

/** Ledger tax row: the tax figures of the document for VAT reporting (architecture §9). */
export const ledgerTaxRowSchema = z
  .object({
    currency: nullish(currencyCode),
    tax_rate: nullish(percentRate),
    tax_rate_rc: nullish(percentRate).describe('Reverse-charge rate'),
    is_reverse_charge: nullish(z.boolean()),
    tax_index: nullish(int32),
    tax_code: nullish(shortText(64)),
    tax_name: nullish(shortText()),
    tax_base_in: nullish(money),
    tax_base_in_leg: nullish(money),
    tax_base_out: nullish(money),
    tax_base_out_leg: nullish(money),
    tax_amount_in: nullish(money),
    tax_amount_in_leg: nullish(money),
    tax_amount_claim: nullish(money),
    tax_amount_claim_leg: nullish(money),
    tax_amount_out: nullish(money),
    tax_amount_out_leg: nullish(money),
    tax_return_base_in: nullish(shortText(32)).describe('VAT return row of the base, input side'),
    tax_return_base_out: nullish(shortText(32)).describe('VAT return row of the base, output side'),
    tax_return_amount_claim: nullish(shortText(32)),
    tax_return_amount_out: nullish(shortText(32)),
    tax_control_statement: nullish(shortText(32)).describe('Control statement section, e.g. A.4, B.2'),
    tax_eu_sales_report: nullish(shortText(32)).describe('EC sales list code, e.g. 0, 3'),
    tax_deduction_ratio: nullish(ratio),
    net_deduction_ratio: nullish(ratio),
    ...ledgerRowFields,
  })
  .meta({ id: 'LedgerTaxRow', description: 'Ledger tax row' });
export type LedgerTaxRow = z.infer<typeof ledgerTaxRowSchema>;

export const transactionRowSchema = z
  .object({
    order: nullish(int32),
    payment_amount: nullish(money),
    date_posting: nullish(isoDate),
    currency: nullish(currencyCode),
    payment_reference: nullish(shortText(140)),
    tax_deduction_ratio: nullish(ratio),
    net_deduction_ratio: nullish(ratio),
    contact: nullish(contactSchema),
    paid_record: nullish(paidRecordSchema),
    taxes: z.array(ledgerTaxRowSchema),
    fx_rates: nullish(z.array(fxRateSchema)),
    ...ledgerRowFields,
  })
  .meta({ id: 'TransactionRow', description: 'Row of an accounting transaction' });
export type TransactionRow = z.infer<typeof transactionRowSchema>;

export const actRowSchema = z
  .object({ id: nullish(int64), type: nullish(shortText(64)), debit: money, credit: money, gl_account: glAccountSchema })
  .meta({ id: 'ActRow' });
export type ActRow = z.infer<typeof actRowSchema>;

export const transactionTaxPostingSchema = z
  .object({ id: nullish(int64), debit: money, credit: money, gl_account: glAccountSchema })
  .meta({ id: 'TransactionTaxPosting' });

/**
 * The ledger entry of the README's invoice (250.00 + VAT 42.00 and 6.00 = 298.00) as its three
 * arrays show it: `rows` are the postings; `act_rows` and `taxes` restate them.
 */
const gl = (number: string, name: string) => ({ number, name });
export const EXAMPLE_INVOICE_ENTRY = {
  rows: [
    { id: 1, debit: 298, credit: 0, gl_account: gl('311', 'Customers'), taxes: [] },
    { id: 2, debit: 0, credit: 200, gl_account: gl('604', 'Sales of goods'), taxes: [] },
    { id: 3, debit: 0, credit: 50, gl_account: gl('604', 'Sales of goods'), taxes: [] },
    { id: 4, debit: 0, credit: 42, gl_account: gl('343', 'VAT'), taxes: [] },
    { id: 5, debit: 0, credit: 6, gl_account: gl('343', 'VAT'), taxes: [] },
  ],
  act_rows: [
    { id: 1, type: 'receivable', debit: 298, credit: 0, gl_account: gl('311', 'Customers') },
    { id: 2, type: 'revenue', debit: 0, credit: 250, gl_account: gl('604', 'Sales of goods') },
    { id: 4, type: 'tax', debit: 0, credit: 48, gl_account: gl('343', 'VAT') },
  ],
  taxes: [
    { id: 4, debit: 0, credit: 42, gl_account: gl('343', 'VAT') },
    { id: 5, debit: 0, credit: 6, gl_account: gl('343', 'VAT') },
  ],
  debit: 298,
  credit: 298,
};

/** Accounting transaction: one balanced ledger entry with its rows. */
export const accountingTransactionSchema = z
  .object({
    id: id,
    uid: uuid,
    created_at: isoDateTime,
    edited_at: nullish(isoDateTime),
    books: z.array(z.object({ id: int64 })),
    type: nullish(shortText(64)).describe('Kind of the source document: sales_invoice, sales_credit_note, sales_advance_tax_document, purchase_bill, purchase_vendor_credit, purchase_advance_tax_document, bank_transaction, payout, journal_entry (a manual journal entry), reversal'),
    transaction_type: nullish(transactionTypeSchema),
    cash_card: nullish(z.object({ id: nullish(int64), name: nullish(shortText()) })),
    no: nullish(shortText(64)),
    vendor_doc_no: nullish(shortText(64)),
    credited_doc_no: nullish(shortText(64)),
    payment_reference: nullish(shortText(140)),
    date_issued: nullish(isoDate),
    date_due: nullish(isoDate),
    date_posting: isoDate,
    date_taxable: nullish(isoDate),
    date_tax_applied: nullish(isoDate),
    date_from: nullish(isoDate),
    date_to: nullish(isoDate),
    currency: nullish(currencyCode),
    precision: nullish(precision),
    contact: nullish(contactSchema),
    bank_account: nullish(bankAccountSchema),
    tax_nexus: nullish(taxNexusSchema),
    tax_deduction_ratio: nullish(ratio),
    net_deduction_ratio: nullish(ratio),
    opening_balance: nullish(moneyAggregate),
    closing_balance: nullish(moneyAggregate),
    amount_paid: nullish(money),
    amount_due: nullish(money),
    accounting_status: accountingStatusSchema,
    rows: z
      .array(transactionRowSchema)
      .describe(
        'The postings of this entry, one per ledger row: Σ debit = Σ credit = the entry\'s debit/credit. This is the array to sum (balances, trial balances, exports); act_rows and taxes restate these same postings and must not be added to it.',
      )
      .meta({ examples: [EXAMPLE_INVOICE_ENTRY.rows] }),
    act_rows: z
      .array(actRowSchema)
      .describe(
        'The same postings summarised for reading: rows of one account and role merged into one line (type: receivable, revenue, tax, …). Their sums equal those of rows; never add them to rows.',
      )
      .meta({ examples: [EXAMPLE_INVOICE_ENTRY.act_rows] }),
    taxes: z
      .array(transactionTaxPostingSchema)
      .describe(
        'The VAT postings of rows again (a subset of rows, for tax reports): never add them to rows.',
      )
      .meta({ examples: [EXAMPLE_INVOICE_ENTRY.taxes] }),
    fx_rates: nullish(z.array(fxRateSchema)),
    is_locked: z.boolean(),
    debit: moneyAggregate.describe('Σ debit of the rows'),
    credit: moneyAggregate.describe('Σ credit of the rows (equals debit)'),
    gl_account: nullish(glAccountSchema),
    description: nullish(longText()),
    // extensions: which document this entry posts, and the currency its ledger figures are in
    source: z
      .object({ type: shortText(64), id: int64, version: z.int().min(1) })
      .optional()
      .describe('The posted document: its type, id and the version this entry posts'),
    legal_currency: currencyCode.optional().describe('Currency of debit and credit: the organisation\'s legal currency'),
    reverses_id: nullish(int64).describe('The entry this one reverses, for a reversing entry'),
  })
  .meta({
    id: 'AccountingTransaction',
    description:
      'Accounting transaction with its ledger rows. Sum `rows` only: `act_rows` (per account and role) and `taxes` (the VAT rows) show the same postings again.',
  });
export type AccountingTransaction = z.infer<typeof accountingTransactionSchema>;

/** Query of GET /accounting/transactions. */
/** The kinds of document the ledger posts (an entry's `source.type`). */
export const LEDGER_SOURCE_TYPES = ['sales_invoice', 'sales_credit_note', 'sales_advance_tax_document', 'purchase_bill', 'purchase_vendor_credit', 'purchase_advance_tax_document', 'bank_transaction', 'payout', 'journal_entry'] as const;

export const accountingTransactionListQuerySchema = z.object({
  date_posting: rangeQuery('date').optional(),
  source_type: z.enum(LEDGER_SOURCE_TYPES).optional().describe('Only the entries posted for documents of this kind (and their reversals)'),
  source_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('With source_type: only the entries of that one document, every version and reversal'),
  account_number: rangeQuery('string')
    .optional()
    .describe('Only the entries with a row on an account of this range, compared as strings: 343, [500;599], [6;] (what moved on an account, with date_posting for a period)'),
  ...keysetPagingQuery(100),
  search: searchQuery.optional(),
  sort: sortQuery.optional(),
});
export type AccountingTransactionListQuery = z.output<typeof accountingTransactionListQuerySchema>;
export const accountingTransactionPageSchema = keysetPagedEnvelope(accountingTransactionSchema);

// --- trial balance ---------------------------------------------------------------------

export const trialBalanceRowSchema = z
  .object({
    gl_account: glAccountSchema,
    ob: moneyAggregate.describe('Balance before date_from (debit positive)'),
    debit: moneyAggregate,
    credit: moneyAggregate,
    cb: moneyAggregate.describe('ob + debit − credit'),
    ytd_debit: moneyAggregate.describe('From 1 January of date_to’s year to date_to'),
    ytd_credit: moneyAggregate,
  })
  .meta({ id: 'TrialBalanceRow' });
export type TrialBalanceRow = z.infer<typeof trialBalanceRowSchema>;

export const trialBalanceSchema = z
  .object({
    currency: currencyCode.describe('Legal currency'),
    period_from: z.string().nullable().describe('Accounting period (YYYY-MM) of date_from'),
    period_to: z.string().nullable().describe('Accounting period (YYYY-MM) of date_to'),
    date_from: isoDate.nullable(),
    date_to: isoDate.nullable(),
    rows: z.array(trialBalanceRowSchema),
  })
  .meta({ id: 'TrialBalance', description: 'Trial balance of a book' });
export type TrialBalance = z.infer<typeof trialBalanceSchema>;

/** The JSON export: each row holds only the columns the body selected (all when none are). */
export const trialBalanceExportSchema = z
  .object({
    ...trialBalanceSchema.shape,
    rows: z.array(
      z
        .object({
          gl_account: glAccountSchema.partial().optional().describe('Present when a gl_account column is selected: its id and the selected fields'),
          ob: moneyAggregate.optional(),
          debit: moneyAggregate.optional(),
          credit: moneyAggregate.optional(),
          cb: moneyAggregate.optional(),
          ytd_debit: moneyAggregate.optional(),
          ytd_credit: moneyAggregate.optional(),
        })
        .meta({ id: 'TrialBalanceExportRow', description: 'A trial-balance row with the selected columns only' }),
    ),
  })
  .meta({ id: 'TrialBalanceExport', description: 'Exported trial balance: rows carry the selected columns (all of them when the body selects none)' });
export type TrialBalanceExport = z.infer<typeof trialBalanceExportSchema>;

export const TRIAL_BALANCE_COLUMN_KEYS = [
  'gl_account.number',
  'gl_account.name',
  'ob',
  'debit',
  'credit',
  'cb',
  'ytd_debit',
  'ytd_credit',
] as const;

/** A column of the trial-balance export: which figure, and an optional header title. */
export const trialBalanceColumnSchema = z
  .object({
    key: z.enum(TRIAL_BALANCE_COLUMN_KEYS).describe('The figure: gl_account.number, gl_account.name, ob, debit, credit, cb, ytd_debit or ytd_credit'),
    title: z.string().max(255).optional().describe('Header of the column (CSV header row); the key when absent'),
  })
  .meta({
    id: 'TrialBalanceColumn',
    description: 'A column of the trial-balance export: key names the figure, title the header. The spec leaves its shape open; the contract fixes it as {key, title?}.',
  });
export type TrialBalanceColumn = z.infer<typeof trialBalanceColumnSchema>;

/**
 * Body of POST /reporting/financial/trial-balance/{book_id}/export/{format}: an array of
 * objects each holding `columns` (nullable). The columns of the first object with a non-empty
 * list select and order the exported columns; an empty array or null columns export all of them.
 */
export const trialBalanceExportBodySchema = z
  .array(z.object({ columns: z.array(trialBalanceColumnSchema).max(TRIAL_BALANCE_COLUMN_KEYS.length * 4).nullable().optional() }))
  .max(100)
  .meta({
    id: 'TrialBalanceExportRequest',
    description: 'Array of {columns}; the first non-empty columns list selects and orders the exported columns; an empty array or null columns: all columns',
  });
export type TrialBalanceExportBody = z.infer<typeof trialBalanceExportBodySchema>;

export const trialBalanceExportPathSchema = z.object({
  book_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('Book id; 1 is the general ledger'),
  format: exportFormatSchema.describe('json or csv (UTF-8 with a header row)'),
});

export const trialBalanceExportQuerySchema = z.object({
  date_posting: rangeQuery('date').optional().describe('Date range of the period: v, [v;], [;v] or [a;b]'),
  account_number: rangeQuery('string').optional().describe('String range of GL account numbers, compared as strings: A, [A;], [;Z] or [A;Z]'),
});
export type TrialBalanceExportQuery = z.output<typeof trialBalanceExportQuerySchema>;

// --- VAT return (extension) -------------------------------------------------------------------

/** The period of a tax report (the VAT return, the control statement). */
export const taxPeriodQuerySchema = z.object({
  date_from: isoDate.describe('First day of the tax period (e.g. 2026-10-01)'),
  date_to: isoDate.describe('Last day of the tax period, on or after date_from (e.g. 2026-10-31)'),
});
export type TaxPeriodQuery = z.output<typeof taxPeriodQuerySchema>;

/** The kinds of a filing: regular (B), corrective within the deadline (O), follow-up after it (N), and for the control statement an answer to the tax office's call (E). */
export const FILING_KINDS = ['B', 'O', 'N', 'E'] as const;
export type FilingKind = (typeof FILING_KINDS)[number];

/** A tax report's query, which may also ask for the filing (EPO XML) instead of the JSON. */
export const taxFilingQuerySchema = taxPeriodQuerySchema.extend({
  format: z
    .enum(['json', 'epo'])
    .optional()
    .describe("epo: a preview of the tax office's EPO XML filing of the period (as does Accept: application/xml), kept nowhere — POST /v1/reporting/tax/filings files it; json (default): the report"),
  filing_kind: z.enum(FILING_KINDS).optional().describe('The filing kind of the EPO XML: B regular (default), O corrective, N follow-up, E answer to a call'),
  date_found: isoDate.optional().describe('A follow-up filing (N): the day the reasons for it were found (d_zjist)'),
  filed_on: isoDate
    .optional()
    .describe("The filing's date (d_poddp): on or after the period's last day; default the later of today (in Prague) and the period's last day, so a filing prepared ahead is dated when it can be filed"),
  call_reference: z
    .string()
    .regex(/^[\p{L}\p{N} ./-]{1,32}$/u, "the reference of the tax office's call as it states it")
    .optional()
    .describe("The control statement answering the tax office's call (E, or N when the call asked for it): the call's reference number (c_jed_vyzvy)"),
});
export type TaxFilingQuery = z.output<typeof taxFilingQuerySchema>;

export const TAX_FILING_FORMS = ['DPHKH1', 'DPHDP3', 'DPHSHV'] as const;

/** POST /v1/reporting/tax/filings: the filing of a form for a period, produced and kept as filed. */
export const taxFilingRequestSchema = taxPeriodQuerySchema
  .extend({
    form: z.enum(TAX_FILING_FORMS).describe('DPHDP3 the VAT return, DPHKH1 the control statement, DPHSHV the EC Sales List'),
    filing_kind: taxFilingQuerySchema.shape.filing_kind,
    date_found: taxFilingQuerySchema.shape.date_found,
    call_reference: taxFilingQuerySchema.shape.call_reference,
    filed_on: taxFilingQuerySchema.shape.filed_on,
  })
  .meta({ id: 'TaxFilingRequest', description: 'A filing to keep as filed: the form, its period (which has ended) and kind; a follow-up states its difference against the one filed before' });
export type TaxFilingRequest = z.output<typeof taxFilingRequestSchema>;

export const taxFilingSchema = z
  .object({
    id: z.int(),
    form: z.enum(TAX_FILING_FORMS).describe('DPHKH1 the control statement, DPHDP3 the VAT return, DPHSHV the EC Sales List'),
    date_from: isoDate,
    date_to: isoDate,
    kind: z.string().describe("The form's own kind code: B, O, N, E (DPHKH1); B, O, D, E (DPHDP3); R, N (DPHSHV)"),
    tax: moneyAggregate.nullable().describe('DPHDP3: the return\'s tax (row 62 − row 63), what a follow-up compares with'),
    sha256: z.string().describe('SHA-256 of the XML as produced'),
    xml: z.string().describe('The filing as produced'),
    created_at: isoDateTime,
    created_by: z.string(),
  })
  .meta({ id: 'TaxFiling', description: 'A filing for the tax office (EPO XML), kept as filed' });
export type TaxFiling = z.infer<typeof taxFilingSchema>;

export const taxFilingListQuerySchema = z.object({
  form: z.enum(TAX_FILING_FORMS).optional(),
  date_from: isoDate.optional().describe('The first day of the period the filings are for'),
  ...pagingQuery(100),
});
export type TaxFilingListQuery = z.output<typeof taxFilingListQuerySchema>;
export const taxFilingPageSchema = pagedEnvelope(taxFilingSchema);

/** What every tax report says of its period beside its figures (the VAT return, the control statement, the EC Sales List). */
const taxReportPeriod = {
  currency: currencyCode.describe('Legal currency'),
  date_from: isoDate,
  date_to: isoDate,
};
const taxReportClosed = z.boolean().describe("true when the organisation's books are closed through date_to (lock_date): the figures can no longer change");

export const vatReturnRowSchema = z
  .object({
    row: z.string().describe('Row of the Czech VAT return (DPHDP3): 1, 2 output; 3–6 EU acquisitions; 10, 11 reverse charge received; 20–22, 25 base only; 40, 41, 43, 44 deductions'),
    name: z.string(),
    base: moneyAggregate.describe('Σ tax base in the legal currency (credit notes negative)'),
    tax: moneyAggregate.describe('Σ tax: output tax on rows 1–13, the deduction claimed on rows 40–45, 0 on rows that report a base only'),
  })
  .meta({ id: 'VatReturnRow' });

export const vatReturnSchema = z
  .object({
    ...taxReportPeriod,
    rows: z.array(vatReturnRowSchema).describe('The rows the period has figures for, in the order of the form'),
    output_tax: moneyAggregate.describe('Row 62: Σ tax of rows 1–13'),
    deductible_tax: moneyAggregate.describe('Row 46 (and 63): Σ deductions of rows 40–45'),
    tax_due: moneyAggregate.describe('Row 64: output_tax − deductible_tax when positive, else 0'),
    excess_deduction: moneyAggregate.describe('Row 65: deductible_tax − output_tax when positive, else 0'),
    filed: z
      .object({
        rows: z.array(vatReturnRowSchema),
        output_tax: moneyAggregate,
        deductible_tax: moneyAggregate,
        tax_due: moneyAggregate,
        excess_deduction: moneyAggregate,
      })
      .describe('The figures as entered on the form: each row\'s base and tax in whole units (rounded half away from zero, row by row), the totals summed from the rounded rows'),
    entries: z.int().min(0).describe('Ledger entries with VAT in the period'),
    closed: taxReportClosed,
  })
  .meta({
    id: 'VatReturn',
    description:
      'The VAT return of a period, summed from the ledger tax rows posted in it (by date_posting: a document\'s taxable date, else its issue date). Exact figures in the legal currency, and in filed the whole units the form takes',
  });
export type VatReturn = z.infer<typeof vatReturnSchema>;

// --- VAT control statement (extension) -------------------------------------------------------

const rateFigures = {
  base_basic: moneyAggregate.describe('Tax base at the basic rate (21 %)'),
  tax_basic: moneyAggregate,
  base_reduced: moneyAggregate.describe('Tax base at the reduced rate (12 %)'),
  tax_reduced: moneyAggregate,
};
export const controlStatementDocumentSchema = z
  .object({
    partner_vat_no: z.string().nullable().describe("The customer's (A) or vendor's (B) VAT id"),
    document_no: z.string().nullable().describe("The tax document's number: ours for sales, the vendor's own (vendor_doc_no) for purchases"),
    date_taxable: isoDate.describe('Date of the taxable supply'),
    source: z.object({ type: z.string(), id: int64 }).describe('The document in this API'),
    ...rateFigures,
  })
  .meta({ id: 'ControlStatementDocument', description: 'A document the control statement lists one by one (credit notes with negative figures)' });

export const controlStatementTotalsSchema = z.object(rateFigures).meta({ id: 'ControlStatementTotals', description: 'Documents the control statement reports as one sum per rate' });

export const controlStatementSchema = z
  .object({
    ...taxReportPeriod,
    a1: z.array(controlStatementDocumentSchema).describe('A.1: reverse-charge supplies we made (base only)'),
    a2: z
      .array(controlStatementDocumentSchema)
      .describe("A.2: goods acquired and services received from another member state, on which the organisation self-assesses the tax (the supplier's VAT id with its country prefix)"),
    a4: z.array(controlStatementDocumentSchema).describe('A.4: domestic supplies over 10 000 incl. VAT to a VAT payer, and credit notes of such'),
    a5: controlStatementTotalsSchema.describe('A.5: the other domestic supplies'),
    b1: z.array(controlStatementDocumentSchema).describe('B.1: reverse-charge supplies received (the tax we self-assess)'),
    b2: z.array(controlStatementDocumentSchema).describe('B.2: domestic purchases over 10 000 incl. VAT with deduction'),
    b3: controlStatementTotalsSchema.describe('B.3: the other domestic purchases with deduction'),
    closed: taxReportClosed,
  })
  .meta({
    id: 'ControlStatement',
    description:
      'The Czech VAT control statement (kontrolní hlášení) of a period, from the control-statement section every ledger tax row carries: the documents listed one by one, the rest summed. Exact figures in the legal currency',
  });
export type ControlStatement = z.infer<typeof controlStatementSchema>;

// --- EC Sales List (extension) ----------------------------------------------------------------

export const euSalesListLineSchema = z
  .object({
    country: z.string().describe("The customer's EU member state: the first two letters of its VAT id (EL for Greece)"),
    vat_no: z.string().describe("The customer's VAT id without its country prefix"),
    code: z.string().describe('0 goods supplied to another member state, 3 services'),
    base: moneyAggregate.describe('Σ of the supplies in the legal currency (credit notes negative)'),
    documents: z.int().min(0).describe('Documents summed in this line'),
  })
  .meta({ id: 'EuSalesListLine' });

export const euSalesListSchema = z
  .object({
    ...taxReportPeriod,
    lines: z.array(euSalesListLineSchema).describe('One line per customer VAT id and code, by country and VAT id'),
    closed: taxReportClosed,
  })
  .meta({
    id: 'EuSalesList',
    description: 'The EC Sales List (souhrnné hlášení) of a period: supplies to VAT payers in other EU states, summed per customer VAT id and code from the ledger tax rows',
  });
export type EuSalesList = z.infer<typeof euSalesListSchema>;

/** Reference to the document an accounting transaction was posted for (event extension). */
export const sourceDocumentSchema = z.object({
  type: z.union([paidRecordTypeSchema, z.enum(['bank_transaction', 'payout', 'journal_entry'])]),
  id: int64,
  no: nullish(z.string()),
  version: nullish(z.int()),
});
