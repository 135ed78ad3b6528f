import { parseArgs } from 'node:util';
import { z } from 'zod';
import { baseConfigSchema, createLogger, EventBus, initOrm, loadConfig } from '@ledgerline/service-kit';
import { accountingService } from '../service.js';
import { rebuildLedger } from '../events/rebuild.js';

/**
 * `npm run rebuild-ledger -- --org <id>`: rebuilds one organisation's ledger from the JetStream
 * streams (see rebuildLedger). Uses the accounting service's configuration (DATABASE_URL,
 * DATABASE_PREFIX, NATS_URL, NATS_SUBJECT_PREFIX, LEGAL_CURRENCY, ORG_COUNTRY).
 */
async function main() {
  const { values } = parseArgs({ options: { org: { type: 'string' } } });
  const orgId = Number(values.org);
  if (!values.org || !Number.isInteger(orgId) || orgId < 1) {
    process.stderr.write('usage: npm run rebuild-ledger -- --org <organisation id>\n');
    process.exit(2);
  }
  const schema = baseConfigSchema.extend((accountingService.configSchema?.shape ?? {}) as z.ZodRawShape);
  const config = loadConfig(schema, process.env) as z.infer<typeof baseConfigSchema> & { LEGAL_CURRENCY: string; ORG_COUNTRY: string };
  const log = createLogger('accounting-rebuild', config.LOG_LEVEL);
  const orm = await initOrm({
    databaseUrl: config.DATABASE_URL,
    databaseName: `${config.DATABASE_PREFIX}accounting`,
    entities: accountingService.entities,
    migrations: accountingService.migrations,
  });
  const bus = await EventBus.connect(config, 'ledgerline-accounting-rebuild', log);
  try {
    const result = await rebuildLedger(orm, bus, orgId, { legalCurrency: config.LEGAL_CURRENCY, orgCountry: config.ORG_COUNTRY }, log);
    process.stdout.write(`ledger of organisation ${orgId} rebuilt: ${result.events} events replayed, ${result.transactions} accounting transactions\n`);
  } finally {
    await bus.close();
    await orm.close(true);
  }
}

main().catch((err) => {
  process.stderr.write(`rebuild-ledger failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
