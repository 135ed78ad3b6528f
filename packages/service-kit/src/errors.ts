// The error hierarchy lives in @ledgerline/core (shared with the pure packages); the kit passes it on.
export * from '@ledgerline/core/errors';
