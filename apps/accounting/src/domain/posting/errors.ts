import type { Dec } from '@ledgerline/service-kit';

/* What posting raises: an entry that does not balance, and a document it cannot convert. */

export class UnbalancedEntryError extends Error {
  constructor(
    readonly debit: Dec,
    readonly credit: Dec,
    what: string,
  ) {
    super(`${what} does not balance: debit ${debit.toFixed(2)} ≠ credit ${credit.toFixed(2)}`);
    this.name = 'UnbalancedEntryError';
  }
}

/** The document lacks legal-currency figures and the rate to derive them. */
export class MissingLegalFiguresError extends Error {
  constructor(what: string) {
    super(`${what}: no legal-currency (_leg) figures and no fx_rate to derive them`);
    this.name = 'MissingLegalFiguresError';
  }
}
