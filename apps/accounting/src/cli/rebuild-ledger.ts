import { parseArgs } from 'node:util';
import { z } from 'zod';
import { baseConfigSchema, createLogger, EventBus, initOrm, loadConfig, serviceMigrations } from '@ledgerline/service-kit';
import { accountingService } from '../service.js';
import { checkLedger, rebuildLedger, type LedgerCheck } from '../events/rebuild.js';
import { fillEntryViews, refreshLedgerStatistics } from '../domain/entry-views.js';
import { RebuildRunningError } from '../domain/ledger-generation.js';

/**
 * `npm run rebuild-ledger -- --org <id> [--check] [--in-order] [--draft-threads N]`: rebuilds one
 * organisation's ledger from the JetStream streams (see rebuildLedger); with `--check`, only says
 * what a rebuild would change (checkLedger) and exits 1 when it would change anything; with
 * `--in-order`, replays every event in the ledger's transaction instead of staging a generation
 * (decision 245); `--draft-threads N` drafts a generation in N worker threads (none by default). Exits 75 while
 * another rebuild of the organisation runs. Uses the accounting service's
 * configuration (DATABASE_URL, DATABASE_PREFIX, NATS_URL, NATS_SUBJECT_PREFIX, LEGAL_CURRENCY,
 * ORG_COUNTRY).
 */
async function main() {
  const { values } = parseArgs({ options: { org: { type: 'string' }, check: { type: 'boolean' }, 'in-order': { type: 'boolean' }, 'draft-threads': { type: 'string' } } });
  const orgId = Number(values.org);
  const draftThreads = values['draft-threads'] === undefined ? undefined : Number(values['draft-threads']);
  if (!values.org || !Number.isInteger(orgId) || orgId < 1 || (draftThreads !== undefined && !(Number.isInteger(draftThreads) && draftThreads >= 0 && draftThreads <= 16))) {
    process.stderr.write('usage: npm run rebuild-ledger -- --org <organisation id> [--check] [--in-order] [--draft-threads <0–16>]\n');
    process.exit(2);
  }
  const schema = baseConfigSchema.extend((accountingService.configSchema?.shape ?? {}) as z.ZodRawShape);
  const config = loadConfig(schema, process.env) as z.infer<typeof baseConfigSchema> & { LEGAL_CURRENCY: string; ORG_COUNTRY: string };
  const log = createLogger('accounting-rebuild', config.LOG_LEVEL);
  const orm = await initOrm({
    databaseUrl: config.DATABASE_URL,
    databaseName: `${config.DATABASE_PREFIX}accounting`,
    entities: accountingService.entities,
    // as the service migrates its database: the kit's organisation replica first, then its own
    migrations: serviceMigrations(accountingService),
    liveSql: accountingService.liveSql,
  });
  const bus = await EventBus.connect(config, 'ledgerline-accounting-rebuild', log);
  const opts = { legalCurrency: config.LEGAL_CURRENCY, orgCountry: config.ORG_COUNTRY };
  const method = values['in-order'] ? ('in_order' as const) : undefined;
  try {
    if (values.check) {
      const check = await checkLedger(orm, bus, orgId, opts, { method, draftThreads });
      process.stdout.write(checkReport(check));
      if (check.missing.length + check.extra.length + check.changed.length > 0) process.exitCode = 1;
      return;
    }
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await rebuildLedger(orm, bus, orgId, opts, { log, method, draftThreads });
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    // what the rebuild cost, for sizing one: its time, the old ledger's deletion in it, and this process's CPU (Postgres' is apart)
    process.stdout.write(
      `ledger of organisation ${orgId} rebuilt ${result.method === 'generation' ? 'as a generation' : 'in order'}: ${result.events} events replayed${result.method === 'generation' ? ` (${result.staged} postings staged, ${result.kept} of them already in the ledger as staged and kept)` : ''}, ${result.transactions} accounting transactions in ${seconds.toFixed(1)} s ` +
        `(staging ${result.stageSeconds.toFixed(1)} s${result.draftThreads ? ` with ${result.draftThreads} drafting thread${result.draftThreads === 1 ? '' : 's'}` : ''}, ${result.method === 'generation' ? 'comparing the old ledger and deleting what differs' : 'deleting the old ledger'} ${result.clearSeconds.toFixed(1)} s; this process's CPU ${((used.user + used.system) / 1e6).toFixed(1)} s)\n`,
    );
    // the planner's view of the moved rows, then the entries' stored views, the API answering meanwhile (decision 260)
    const analyzeStarted = performance.now();
    await refreshLedgerStatistics(orm);
    process.stdout.write(`statistics of the ledger's tables refreshed in ${((performance.now() - analyzeStarted) / 1000).toFixed(1)} s\n`);
    const viewsStarted = performance.now();
    const views = await fillEntryViews(orm, orgId);
    process.stdout.write(`stored views of ${views} entries written in ${((performance.now() - viewsStarted) / 1000).toFixed(1)} s\n`);
  } finally {
    await bus.close();
    await orm.close(true);
  }
}

function checkReport(c: LedgerCheck): string {
  const how = c.method === 'generation' ? 'staged as a generation' : 'replayed in order';
  const out = [`ledger of organisation ${c.orgId}: ${c.transactions} accounting transactions now; a rebuild from the ${c.events} events in the streams (${how}) would make ${c.rebuilt}`];
  for (const k of c.missing) out.push(`missing\t${k}\t(a rebuild would add it)`);
  for (const k of c.extra) out.push(`extra\t${k}\t(a rebuild would remove it)`);
  for (const d of c.changed) out.push(`changed\t${d.key}\t${d.fields.join(', ')}`);
  for (const u of c.unpostable) out.push(`unpostable\tevent ${u.eventId}\t${u.reason}`);
  const differences = c.missing.length + c.extra.length + c.changed.length;
  out.push(differences ? `${differences} difference${differences === 1 ? '' : 's'}: a rebuild would change the ledger` : 'the ledger matches its streams: a rebuild would change nothing');
  return `${out.join('\n')}\n`;
}

main().catch((err) => {
  if (err instanceof RebuildRunningError) {
    process.stderr.write(`rebuild-ledger: ${err.message}; try again when it has finished\n`);
    process.exit(75);
  }
  process.stderr.write(`rebuild-ledger failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
