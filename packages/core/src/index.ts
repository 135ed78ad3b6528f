export * from './money.js';
export * from './errors.js';
