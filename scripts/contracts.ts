/**
 * The contracts other teams and integrations build on: the OpenAPI document, the AsyncAPI event
 * catalogue and a JSON Schema per event type and version, kept as released under
 * `contracts/released/`.
 *
 *   npm run contracts:release   writes the current contracts there (part of cutting a release)
 *   npm run contracts:check     fails when the current contracts break the released ones
 */
import { breakingChanges } from './contracts/breaking-changes.js';
import { RELEASED_DIR, currentContracts, readContracts, writeContracts } from './contracts/released-contracts.js';

const command = process.argv[2];
if (command === 'release') {
  const contracts = currentContracts();
  writeContracts(contracts);
  process.stdout.write(`released contracts written to contracts/released (openapi.json, asyncapi.json, ${Object.keys(contracts.events).length} event schemas)\n`);
} else if (command === 'check') {
  const found = breakingChanges(readContracts(RELEASED_DIR), currentContracts());
  if (found.length) {
    process.stderr.write(`${found.length} breaking change(s) against the released contracts (contracts/released):\n`);
    for (const b of found) process.stderr.write(`  ${b.contract} ${b.where}: ${b.description}\n`);
    process.stderr.write('Make the change additive, or version it (docs/integrations.md, "Compatibility").\n');
    process.exit(1);
  }
  process.stdout.write('contracts: no breaking change against the released ones\n');
} else {
  process.stderr.write('usage: tsx scripts/contracts.ts release|check\n');
  process.exit(2);
}
