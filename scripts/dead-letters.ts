import { parseArgs } from 'node:util';
import { baseConfigSchema, createLogger, EventBus, listDeadLetters, loadConfig, redriveDeadLetters, type DeadLetter, type DeadLetterFilter } from '@ledgerline/service-kit';

/**
 * `npm run dead-letters -- list|redrive [--service S] [--consumer C] [--org N] [--seq N,N] [--dry-run] [--json]`:
 * what the consumers gave up on (the `DLQ` stream), and publishing it again once the cause is
 * gone (see redriveDeadLetters). Reads NATS_URL, NATS_SUBJECT_PREFIX and the NATS credentials
 * from the environment, as the services do; the user needs to read and delete messages of the
 * DLQ stream and to publish on the subjects it redrives.
 */
const USAGE =
  'usage: npm run dead-letters -- list|redrive [--service <name>] [--consumer <name>] [--org <id>] [--seq <n>[,<n>…]] [--dry-run] [--json]\n' +
  '  list      the dead letters kept, oldest first\n' +
  '  redrive   publish them again on the subject they came on and remove them (--dry-run: only say which)\n';

function usage(problem: string): never {
  process.stderr.write(`dead-letters: ${problem}\n${USAGE}`);
  process.exit(2);
}

function positiveInt(value: string, what: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) usage(`${what} must be a positive whole number, not "${value}"`);
  return n;
}

function line(l: DeadLetter): string {
  return `${l.seq}\t${l.time.toISOString()}\t${l.consumer || l.service}\t${l.subject}\t${l.eventId ?? '-'}\t${l.reason}`;
}

const OPTIONS = {
  service: { type: 'string' },
  consumer: { type: 'string' },
  org: { type: 'string' },
  seq: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

function parsedArgs() {
  try {
    return parseArgs({ options: OPTIONS, allowPositionals: true });
  } catch (e) {
    usage((e as Error).message);
  }
}

async function main() {
  const parsed = parsedArgs();
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (positionals.length !== 1 || (command !== 'list' && command !== 'redrive')) usage('name one command: list or redrive');
  const filter: DeadLetterFilter = {
    service: values.service,
    consumer: values.consumer,
    orgId: values.org === undefined ? undefined : positiveInt(values.org, '--org'),
    seqs: values.seq === undefined ? undefined : values.seq.split(',').map((s) => positiveInt(s.trim(), '--seq')),
  };
  const config = loadConfig(baseConfigSchema, process.env);
  const bus = await EventBus.connect(config, 'ledgerline-dead-letters', createLogger('dead-letters', config.LOG_LEVEL));
  try {
    if (command === 'list' || values['dry-run']) {
      const letters = await listDeadLetters(bus, filter);
      if (values.json) process.stdout.write(`${JSON.stringify(letters)}\n`);
      else {
        for (const l of letters) process.stdout.write(`${line(l)}\n`);
        process.stdout.write(`${letters.length} dead letter${letters.length === 1 ? '' : 's'}${command === 'redrive' ? ' would be redriven (dry run)' : ''}\n`);
      }
      return;
    }
    const outcomes = await redriveDeadLetters(bus, filter);
    if (values.json) process.stdout.write(`${JSON.stringify(outcomes)}\n`);
    else {
      for (const o of outcomes) process.stdout.write(`${o.redriven ? 'redriven' : `failed (${o.error})`}\t${line(o.letter)}\n`);
      const failed = outcomes.filter((o) => !o.redriven).length;
      process.stdout.write(`${outcomes.length - failed} redriven, ${failed} failed\n`);
    }
    if (outcomes.some((o) => !o.redriven)) process.exitCode = 1;
  } finally {
    await bus.close();
  }
}

main().catch((err) => {
  process.stderr.write(`dead-letters failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
