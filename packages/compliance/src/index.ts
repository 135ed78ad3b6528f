export * from './rules.js';
export * from './evaluate.js';
