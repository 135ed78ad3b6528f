/*
 * What sales and purchase do alike with the documents they post (architecture §4, §5): the number,
 * the row and its event written by one statement; a credit checked against what it credits;
 * payments applied; credits allocated; the open document a payment points to; aged balances.
 * Domain workflows over the kit's infrastructure (app, database, outbox, consumers).
 */
export * from './numbered-insert.js';
export * from './credited-document.js';
export * from './payment-application.js';
export * from './credit-allocation.js';
export * from './credit-allocation-table.js';
export * from './aged-balances.js';
export * from './open-document-finder.js';
export * from './attachments.js';
export * from './attachment-store.js';
export * from './contact-party.js';
export * from './advance-deduction.js';
