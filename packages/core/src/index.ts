export * from './money.js';
export * from './errors.js';
export * from './limits.js';
