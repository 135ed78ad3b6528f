import type { OrganisationUpdate } from '@ledgerline/contracts';
import { SUBJECTS } from '@ledgerline/contracts';
import { ForbiddenError, NotFoundError, ValidationError, isoDay, toWire, propertiesOf, sqlRows, type AuthContext, type OperationContext, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { OrganisationSchema, type Organisation } from '../db/entities.js';
import { createApiKey } from './api-keys.js';
import { latestClosedYear, refuseLockDateInClosedYear } from './closed-years.js';

export type OrganisationInput = OrganisationUpdate;

/** The organisation profile: the credit note's `org` issuer object plus architecture §1's fields. */
export function organisationView(o: Organisation) {
  return {
    id: o.id,
    name: o.name,
    reg_no: o.regNo ?? null,
    tax_no: o.taxNo ?? null,
    vat_no: o.vatNo ?? null,
    eori_no: o.eoriNo ?? null,
    address: o.address,
    info_legal: o.infoLegal ?? null,
    config: o.config,
    website: o.website ?? null,
    email: o.email ?? null,
    phone: o.phone ?? null,
    fb: o.fb ?? null,
    insta: o.insta ?? null,
    country: o.country,
    legal_currency: o.legalCurrency,
    is_vat_payer: o.isVatPayer,
    is_large_enterprise: o.isLargeEnterprise,
    peppol_id: o.peppolId ?? null,
    bank_account: o.bankAccount ?? null,
    rounding_increment: toWire(o.roundingIncrement ?? null),
    default_supply: (o.defaultSupply ?? 'goods') as 'goods' | 'services',
    lock_date: isoDay(o.lockDate ?? null),
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}

function apply(o: Organisation, input: OrganisationInput) {
  const map: Array<[keyof OrganisationInput, Exclude<keyof Organisation, symbol>]> = [
    ['name', 'name'], ['country', 'country'], ['legal_currency', 'legalCurrency'], ['is_vat_payer', 'isVatPayer'],
    ['is_large_enterprise', 'isLargeEnterprise'], ['peppol_id', 'peppolId'], ['reg_no', 'regNo'], ['tax_no', 'taxNo'], ['vat_no', 'vatNo'], ['eori_no', 'eoriNo'],
    ['address', 'address'], ['info_legal', 'infoLegal'], ['config', 'config'], ['website', 'website'],
    ['email', 'email'], ['phone', 'phone'], ['fb', 'fb'], ['insta', 'insta'], ['bank_account', 'bankAccount'], ['lock_date', 'lockDate'],
    ['rounding_increment', 'roundingIncrement'], ['default_supply', 'defaultSupply'],
  ];
  for (const [from, to] of map) if (input[from] !== undefined) (o as unknown as Record<string, unknown>)[to] = input[from];
  // a decimal column: the increment as the decimal text it was sent as
  if (input.rounding_increment != null) o.roundingIncrement = String(input.rounding_increment);
  // The issuer address and config are objects in the profile even when a client clears them.
  if (input.address === null) o.address = {};
  if (input.config === null) o.config = {};
}

async function announce(ctx: OperationContext, o: Organisation) {
  await ctx.emit({ subject: SUBJECTS.settingsOrganisationUpdated, orgId: o.id, resource: String(o.id), data: organisationView(o) });
}

/**
 * A new organisation with its first admin key. The profile is announced on the bus so the
 * services that keep a replica of it (sales renders with it) learn about it.
 */
export async function createOrganisation(ctx: OperationContext, input: OrganisationInput & { name: string }, adminSecret?: string) {
  const { em } = ctx;
  checkLockDate('operator', null, input.lock_date, ctx.now().toISOString().slice(0, 10));
  const org = em.create(OrganisationSchema, {
    name: input.name,
    country: (input.country ?? 'CZ').toUpperCase(),
    legalCurrency: (input.legal_currency ?? 'CZK').toUpperCase(),
    isVatPayer: input.is_vat_payer ?? true,
    isLargeEnterprise: input.is_large_enterprise ?? false,
    address: {},
    config: {},
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  apply(org, input);
  await em.flush();
  const { record, key } = await createApiKey({ em: em, orgId: org.id }, { name: 'Admin key', scopes: ['admin'] }, adminSecret);
  await announce(ctx, org);
  return { org, adminKey: record, secret: key };
}

/**
 * The profile for GET /settings/organisation, read with one prepared statement and no entity
 * hydration (issue 15: the hot read of every integration's start); the columns are the entity's,
 * so the view is the one every other path answers.
 */
export async function organisationViewById(scope: TenantScope) {
  const { em, orgId } = scope;
  // The row as one JSON value: the driver then describes and parses one column, not 23 (each a
  // field object and a type parser per statement; about a tenth of the GET's CPU, decision 174).
  // Its one numeric column (rounding_increment, four decimals at most) is exact as a JSON number.
  const [found] = await sqlRows<{ row: Record<string, unknown> }>(em, 'select to_json(o) as row from organisations o where id = ?', [orgId], { prepared: true });
  const row = found?.row;
  if (!row) throw new NotFoundError('The organisation does not exist', 'organisation_not_found');
  const entity = propertiesOf<Record<string, unknown>>(row);
  const at = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));
  return organisationView({ ...entity, id: Number(row.id), createdAt: at(row.created_at), updatedAt: at(row.updated_at) } as unknown as Organisation);
}

export async function getOrganisation(scope: TenantScope): Promise<Organisation> {
  const { em, orgId } = scope;
  const org = await em.findOne(OrganisationSchema, { id: orgId });
  if (!org) throw new NotFoundError('The organisation does not exist', 'organisation_not_found');
  return org;
}

/**
 * A lock date closes the books through that day (decision 156). Moving it is an accountant's act,
 * not an integration's: a credential without `admin` (one that keeps the website or the bank
 * account current) cannot reopen a filed period, or close one. A day after today would refuse
 * today's own documents, so it is refused; today is the latest (UTC: every zone's yesterday is on
 * or before it).
 */
function checkLockDate(auth: AuthContext | 'operator', stored: string | null, requested: string | null | undefined, today: string): void {
  if (requested === undefined || requested === stored) return;
  if (auth !== 'operator' && !auth.scopes.includes('admin')) {
    throw new ForbiddenError('Only a credential with the admin scope can move the lock date', 'insufficient_scope', [
      { path: 'lock_date', message: 'moving the lock date needs the admin scope', code: 'insufficient_scope' },
    ]);
  }
  if (requested !== null && requested > today) {
    throw new ValidationError(`The request body is invalid: lock_date: ${requested} is after today (${today})`, [
      { path: 'lock_date', message: `the books can be closed through today (${today}) at the latest`, code: 'lock_date_in_future' },
    ]);
  }
}

export async function updateOrganisation(ctx: TenantContext & { auth: AuthContext }, input: OrganisationInput) {
  const { em } = ctx;
  const org = await getOrganisation({ em: em, orgId: ctx.orgId });
  const stored = isoDay(org.lockDate ?? null);
  checkLockDate(ctx.auth, stored, input.lock_date, ctx.now().toISOString().slice(0, 10));
  // moved back (or cleared): not into a year accounting has closed
  if (input.lock_date !== undefined && input.lock_date !== stored && (input.lock_date === null || (stored !== null && input.lock_date < stored))) {
    refuseLockDateInClosedYear(input.lock_date, await latestClosedYear(em, ctx.orgId));
  }
  apply(org, input);
  if (input.country) org.country = input.country.toUpperCase();
  if (input.legal_currency) org.legalCurrency = input.legal_currency.toUpperCase();
  await em.flush();
  await announce(ctx, org);
  return org;
}
