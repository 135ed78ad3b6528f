import { parseArgs } from 'node:util';
// the kit's own modules rather than its index: an operator's command should not load the ORM,
// the HTTP stack and the tracing SDK only to read a stream (it starts in a fraction of the time)
import { baseConfigSchema, loadConfig } from '@ledgerline/service-kit/config';
import { createLogger } from '@ledgerline/service-kit/logger';
import { EventBus } from '@ledgerline/service-kit/events/bus';
import { discardDeadLetters, listDeadLetters, redriveDeadLetters, type DeadLetter, type DeadLetterFilter } from '@ledgerline/service-kit/events/dead-letters';

/**
 * `npm run dead-letters -- list|redrive|discard [--service S] [--consumer C] [--org N] [--seq N,N]
 * [--dry-run] [--json]`: what the consumers gave up on (the `DLQ` stream), publishing it again
 * once the cause is gone (see redriveDeadLetters), or dropping what must never be applied. Reads
 * NATS_URL, NATS_SUBJECT_PREFIX and the NATS credentials from the environment, as the services
 * do; the user needs to read and delete messages of the DLQ stream and to publish on the
 * subjects it redrives.
 */
const USAGE =
  'usage: npm run dead-letters -- list|redrive|discard [--service <name>] [--consumer <name>] [--org <id>] [--seq <n>[,<n>…]] [--dry-run] [--json]\n' +
  '  list      the dead letters kept, oldest first\n' +
  '  redrive   publish them again on the subject they came on and remove them (--dry-run: only say which)\n' +
  '  discard   remove them without publishing (needs --seq, --service, --consumer or --org; --dry-run: only say which)\n';

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
  // one line a letter, tab-separated: a reason's own line breaks and tabs are spaces here
  return `${l.seq}\t${l.time.toISOString()}\t${l.consumer || l.service}\t${l.subject}\t${l.eventId ?? '-'}\t${l.reason.replace(/\s+/g, ' ')}`;
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
  if (positionals.length !== 1 || !['list', 'redrive', 'discard'].includes(command)) usage('name one command: list, redrive or discard');
  const filter: DeadLetterFilter = {
    service: values.service,
    consumer: values.consumer,
    orgId: values.org === undefined ? undefined : positiveInt(values.org, '--org'),
    seqs: values.seq === undefined ? undefined : values.seq.split(',').map((s) => positiveInt(s.trim(), '--seq')),
  };
  // dropping every letter at once is never what a slip of the keyboard should do
  if (command === 'discard' && Object.values(filter).every((v) => v === undefined)) usage('discard needs --seq, --service, --consumer or --org');
  const config = loadConfig(baseConfigSchema, process.env);
  const bus = await EventBus.connect(config, 'ledgerline-dead-letters', createLogger('dead-letters', config.LOG_LEVEL));
  try {
    if (command === 'list' || values['dry-run']) {
      const letters = await listDeadLetters(bus, filter);
      if (values.json) process.stdout.write(`${JSON.stringify(letters)}\n`);
      else {
        for (const l of letters) process.stdout.write(`${line(l)}\n`);
        const dry = command === 'redrive' ? ' would be redriven (dry run)' : command === 'discard' ? ' would be discarded (dry run)' : '';
        process.stdout.write(`${letters.length} dead letter${letters.length === 1 ? '' : 's'}${dry}\n`);
      }
      return;
    }
    if (command === 'discard') {
      const removed = await discardDeadLetters(bus, filter);
      if (values.json) process.stdout.write(`${JSON.stringify(removed)}\n`);
      else {
        for (const l of removed) process.stdout.write(`discarded\t${line(l)}\n`);
        process.stdout.write(`${removed.length} discarded\n`);
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
