import type { EntityManager } from '@mikro-orm/postgresql';
import { bankStatementsExpectedRequestSchema, hostingIntegrationAskSchema, maskSecret, type HostingIntegrationAnswer, type BankIntegrationRequest, type BankStatementsExpectedAnswer, type HostingIntegrationRequest } from '@ledgerline/contracts';
import { SecretBoxError, ValidationError, type Logger, type SecretBox } from '@ledgerline/service-kit';
import { parseMask } from '@ledgerline/documents';
import {
  BankIntegrationSchema,
  HostingIntegrationSchema,
  type BankIntegration,
  type HostingIntegration,
} from '../db/integrations.entities.js';

/** What the integration operations need besides the entity manager. */
export interface IntegrationContext {
  box: SecretBox;
  log: Logger;
}

const hostingAad = (orgId: number, integrationId: string, field: 'api_key' | 'signature') => `hosting:${orgId}:${integrationId}:${field}`;
const bankAad = (orgId: number, id: number) => `bank:${orgId}:${id}:config`;

/** Numbering masks follow the sales numbering syntax ({YYYY}{MM}{####}…). */
export function assertNumberingMask(mask: string | undefined): void {
  if (mask === undefined) return;
  try {
    parseMask(mask);
  } catch (e) {
    const message = e instanceof Error ? e.message : 'invalid numbering mask';
    throw new ValidationError(`The request body is invalid: config.numbering_mask: ${message}`, [
      { path: 'config.numbering_mask', message, code: 'invalid_mask' },
    ]);
  }
}

/**
 * The masked form of a sealed secret for a response. A value that cannot be opened (sealed under
 * an older key) is still shown as present, and the operator is told.
 */
function masked(ctx: IntegrationContext, sealed: string | null | undefined, aad: string): string | null {
  if (!sealed) return null;
  try {
    return maskSecret(ctx.box.open(sealed, aad));
  } catch (e) {
    if (!(e instanceof SecretBoxError)) throw e;
    ctx.log.warn('an integration secret cannot be opened with the current SECRETS_KEY', { aad_scope: aad.split(':')[0], reason: e.message });
    return '****';
  }
}

export function hostingIntegrationView(ctx: IntegrationContext, h: HostingIntegration) {
  return {
    id: h.integrationId,
    config: h.config,
    name: h.name ?? null,
    signature: masked(ctx, h.signatureEnc, hostingAad(h.orgId, h.integrationId, 'signature')),
    source: h.source,
    api_url: h.apiUrl ?? null,
    api_key: masked(ctx, h.apiKeyEnc, hostingAad(h.orgId, h.integrationId, 'api_key')),
  };
}

/**
 * A secret field of a PUT: absent keeps the stored secret (a client that read the masked value
 * cannot send the secret back), the masked value itself also keeps it, null clears it, a new
 * value replaces it.
 */
function nextSecret(ctx: IntegrationContext, current: string | null | undefined, input: string | null | undefined, aad: string) {
  if (input === undefined) return current ?? null;
  if (input === null || input === '') return null;
  if (current && input === masked(ctx, current, aad)) return current;
  return ctx.box.seal(input, aad);
}

/** PUT /v1/settings/integrations/cz/hosting/{id}: creates or replaces the hosting integration `integrationId` of the organisation. */
export async function putHostingIntegration(
  em: EntityManager,
  ctx: IntegrationContext,
  orgId: number,
  integrationId: string,
  input: HostingIntegrationRequest,
): Promise<HostingIntegration> {
  assertNumberingMask(input.config.numbering_mask);
  let row = await em.findOne(HostingIntegrationSchema, { integrationId });
  const now = new Date();
  if (!row) {
    row = em.create(HostingIntegrationSchema, {
      orgId,
      integrationId,
      source: input.source,
      config: input.config,
      createdAt: now,
      updatedAt: now,
    });
  }
  row.source = input.source;
  row.config = input.config;
  if (input.name !== undefined) row.name = input.name;
  if (input.api_url !== undefined) row.apiUrl = input.api_url;
  row.apiKeyEnc = nextSecret(ctx, row.apiKeyEnc, input.api_key, hostingAad(orgId, integrationId, 'api_key'));
  row.signatureEnc = nextSecret(ctx, row.signatureEnc, input.signature, hostingAad(orgId, integrationId, 'signature'));
  row.updatedAt = now;
  await em.flush();
  return row;
}

export function bankIntegrationView(b: BankIntegration) {
  const statements = b.statementAccount && b.statementFormat ? { account: b.statementAccount, format: b.statementFormat } : null;
  return { id: b.id, key: b.key ?? null, type: b.type, provider_key: b.providerKey ?? null, name: b.name ?? null, statements };
}

/** An account as statements write it, for comparing: no spaces, upper case. */
export const statementAccountKey = (account: string) => account.replace(/\s+/g, '').toUpperCase();

/**
 * `rpc.settings.bank.statements` (issue 17): the bank integration that names this account's
 * statements, for finance to refuse a statement of it in another format.
 */
export async function expectedStatements(em: EntityManager, raw: unknown): Promise<BankStatementsExpectedAnswer> {
  const { account } = bankStatementsExpectedRequestSchema.parse(raw);
  const row = await em.findOne(BankIntegrationSchema, { statementAccount: statementAccountKey(account) }, { orderBy: { id: 'desc' } });
  return row ? { found: true, provider: row.provider, key: row.key ?? null, format: row.statementFormat ?? null } : { found: false };
}

/** `rpc.settings.hosting.integration`: when the organisation's hosting integration invoices an order (issue 75). */
export async function hostingIntegrationAnswer(em: EntityManager, raw: unknown, orgId: number): Promise<HostingIntegrationAnswer> {
  const { integration_id } = hostingIntegrationAskSchema.parse(raw);
  const row = await em.findOne(HostingIntegrationSchema, { orgId, integrationId: integration_id });
  return row ? { found: true, create_invoice_after: row.config.create_invoice_after ?? null, taxes_included: row.config.taxes_included ?? null } : { found: false };
}

/**
 * POST /v1/settings/integrations/sk.bank_a: configures a bank integration of `provider`. With a `key` that already names one of the
 * organisation's integrations of this provider, that one is replaced; otherwise one is created.
 * The config is sealed (bound to the row) and never answered.
 */
export async function saveBankIntegration(
  em: EntityManager,
  ctx: IntegrationContext,
  orgId: number,
  provider: string,
  input: BankIntegrationRequest,
): Promise<BankIntegration> {
  const key = input.key ?? null;
  const now = new Date();
  let row = key ? await em.findOne(BankIntegrationSchema, { provider, key }) : null;
  if (!row) {
    row = em.create(BankIntegrationSchema, { orgId, provider, key, type: input.type, createdAt: now, updatedAt: now });
  }
  row.type = input.type;
  if (input.provider_key !== undefined) row.providerKey = input.provider_key;
  if (input.name !== undefined) row.name = input.name;
  if (input.statements !== undefined) {
    row.statementAccount = input.statements ? statementAccountKey(input.statements.account) : null;
    row.statementFormat = input.statements?.format ?? null;
  }
  row.updatedAt = now;
  await em.flush();
  if (input.config !== undefined) {
    row.configEnc = input.config === null ? null : ctx.box.seal(JSON.stringify(input.config), bankAad(orgId, row.id));
    await em.flush();
  }
  return row;
}

/** The decrypted config of a bank integration, for the code that talks to the bank. */
export function bankIntegrationConfig(ctx: IntegrationContext, b: BankIntegration): Record<string, unknown> | null {
  return b.configEnc ? (JSON.parse(ctx.box.open(b.configEnc, bankAad(b.orgId, b.id))) as Record<string, unknown>) : null;
}
