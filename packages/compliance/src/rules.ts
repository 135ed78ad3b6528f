import { z } from 'zod';

/**
 * The compliance rule table (architecture §8) as data. Mandates change: a new country, a new date or a
 * changed outcome is an edit of one row here (or of a JSON file passed to `parseRuleTable`),
 * never a code change. Rows are tried in order; the first row whose conditions all hold wins.
 *
 * Condition vocabulary (S seller country, B buyer country, B2B = the buyer has a VAT id,
 * D = date_issued):
 * - `seller_country`: S is one of these;
 * - `domestic`: true → B = S (false → B ≠ S);
 * - `b2b`: true → B2B only, false → B2C only, absent → both;
 * - `seller_vat_payer`: the organisation is (true) / is not (false) a VAT payer;
 * - `seller_large_enterprise`: the organisation is (true) / is not (false) flagged large;
 * - `valid_from` ≤ D, and D < `valid_until` (ISO dates; either may be absent).
 */

const countryList = z.array(z.string().regex(/^[A-Z]{2}$/)).min(1);
const isoDate = z.iso.date();

export const ruleConditionSchema = z.object({
  seller_country: countryList.optional(),
  domestic: z.boolean().optional(),
  b2b: z.boolean().optional(),
  seller_vat_payer: z.boolean().optional(),
  seller_large_enterprise: z.boolean().optional(),
  valid_from: isoDate.optional(),
  valid_until: isoDate.optional(),
});

/** `if_buyer_peppol_id`: allowed only when the buyer has a Peppol participant id. */
export const allowedActionsRuleSchema = z.object({
  send_email: z.boolean(),
  download_pdf: z.boolean(),
  send_via_peppol: z.union([z.boolean(), z.literal('if_buyer_peppol_id')]),
  submit_to_tax_authority: z.boolean(),
});

export const ruleOutcomeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('deliver'),
    reporting_method: z.enum(['no_reporting', 'reporting_by_delivery']),
    delivery_eligibility: z.enum(['eligible', 'eligible_via_required_channel']),
    required_action: z.enum(['none', 'send_via_peppol']),
    allowed_actions: allowedActionsRuleSchema,
  }),
  z.object({
    kind: z.literal('block'),
    blocking_reason: z.string().min(1),
    allowed_actions: allowedActionsRuleSchema,
  }),
]);

export const complianceRuleSchema = z.object({
  id: z.string().min(1),
  description: z.string(),
  when: ruleConditionSchema,
  then: ruleOutcomeSchema,
});

export const ruleTableSchema = z
  .array(complianceRuleSchema)
  .min(1)
  .refine((rows) => new Set(rows.map((r) => r.id)).size === rows.length, { message: 'rule ids must be unique' })
  .refine((rows) => Object.keys(rows[rows.length - 1].when).length === 0, {
    message: 'the last row must have no conditions (the default), so every invoice matches a row',
  });

export type RuleCondition = z.infer<typeof ruleConditionSchema>;
export type RuleOutcome = z.infer<typeof ruleOutcomeSchema>;
export type ComplianceRule = z.infer<typeof complianceRuleSchema>;
export type RuleTable = ComplianceRule[];

/** Validates a rule table read from configuration (e.g. a JSON file); throws a ZodError when wrong. */
export function parseRuleTable(json: unknown): RuleTable {
  return ruleTableSchema.parse(json);
}

const VIA_PEPPOL = { send_email: false, download_pdf: true, send_via_peppol: true, submit_to_tax_authority: false } as const;
/** A blocked invoice may still be looked at as a PDF copy; it may not be delivered. */
const BLOCKED = { send_email: false, download_pdf: true, send_via_peppol: false, submit_to_tax_authority: false } as const;

function nationalPlatform(id: string, country: string, platform: string, validFrom: string, extra: Partial<RuleCondition> = {}, note = ''): ComplianceRule {
  return {
    id,
    description: `${country} domestic ${extra.b2b === undefined ? 'B2B and B2C' : 'B2B'} invoices go through ${platform} from ${validFrom}${note}`,
    when: { seller_country: [country], domestic: true, b2b: true, valid_from: validFrom, ...extra },
    then: { kind: 'block', blocking_reason: `national_platform_required:${platform}`, allowed_actions: { ...BLOCKED } },
  };
}

/** The rule table of architecture §8. */
export const DEFAULT_RULES: RuleTable = [
  {
    id: 'sk-2027-peppol-reporting',
    description: 'Slovak domestic B2B invoices of a VAT payer from 2027-01-01: delivered over Peppol, which reports them',
    when: { seller_country: ['SK'], domestic: true, b2b: true, seller_vat_payer: true, valid_from: '2027-01-01' },
    then: {
      kind: 'deliver',
      reporting_method: 'reporting_by_delivery',
      delivery_eligibility: 'eligible_via_required_channel',
      required_action: 'send_via_peppol',
      allowed_actions: { ...VIA_PEPPOL },
    },
  },
  {
    id: 'be-2026-peppol',
    description: 'Belgian domestic B2B invoices from 2026-01-01: structured e-invoice over Peppol',
    when: { seller_country: ['BE'], domestic: true, b2b: true, valid_from: '2026-01-01' },
    then: {
      kind: 'deliver',
      reporting_method: 'no_reporting',
      delivery_eligibility: 'eligible_via_required_channel',
      required_action: 'send_via_peppol',
      allowed_actions: { ...VIA_PEPPOL },
    },
  },
  nationalPlatform('pl-ksef', 'PL', 'KSeF', '2026-04-01'),
  // Italy: SDI for every domestic invoice, consumers included, so no B2B condition.
  { ...nationalPlatform('it-sdi', 'IT', 'SDI', '2019-01-01'), when: { seller_country: ['IT'], domestic: true, valid_from: '2019-01-01' } },
  nationalPlatform('ro-efactura', 'RO', 'e-Factura', '2024-01-01'),
  nationalPlatform('gr-mydata', 'GR', 'myDATA', '2026-10-01'),
  nationalPlatform('hr-fiscalization', 'HR', 'fiscalization', '2026-01-01'),
  nationalPlatform('fr-pa-large', 'FR', 'PA', '2026-09-01', { seller_large_enterprise: true }, ' (large enterprises)'),
  nationalPlatform('fr-pa', 'FR', 'PA', '2027-09-01'),
  {
    id: 'default',
    description: 'Every other case (CZ, cross-border, B2C, SK before 2027): any channel, no reporting',
    when: {},
    then: {
      kind: 'deliver',
      reporting_method: 'no_reporting',
      delivery_eligibility: 'eligible',
      required_action: 'none',
      allowed_actions: { send_email: true, download_pdf: true, send_via_peppol: 'if_buyer_peppol_id', submit_to_tax_authority: false },
    },
  },
];

// Fail at import if the shipped table itself is malformed.
parseRuleTable(DEFAULT_RULES);

/**
 * The rule table from a JSON file (`COMPLIANCE_RULES_FILE`), validated like the shipped one, or
 * the shipped table when no file is named. A file that cannot be read or does not validate is
 * an error naming the file and each problem, so a service stops at boot instead of evaluating
 * invoices with a table it half understood.
 */
export function loadRuleTable(file: string | undefined, readFile: (path: string) => string): RuleTable {
  if (!file) return DEFAULT_RULES;
  let json: unknown;
  try {
    json = JSON.parse(readFile(file));
  } catch (e) {
    throw new Error(`COMPLIANCE_RULES_FILE ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const parsed = ruleTableSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`COMPLIANCE_RULES_FILE ${file} is not a rule table: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(table)'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
