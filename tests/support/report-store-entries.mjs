/*
 * Loaded before a built process (`node --import`): writes each entry into any AsyncLocalStorage on
 * the process's own thread to its stderr as a `STORE ENTERED` line, so a test can see whether a
 * bundle turns Node's async hooks on (decisions 128, 268). Worker threads (the PDF printer's
 * Playwright) are left out: async hooks are per thread.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { isMainThread } from 'node:worker_threads';

for (const method of ['run', 'enterWith']) {
  const original = AsyncLocalStorage.prototype[method];
  AsyncLocalStorage.prototype[method] = function (...args) {
    if (isMainThread) process.stderr.write(`STORE ENTERED ${method} ${(new Error().stack ?? '').split('\n')[2]?.trim()}\n`);
    return original.apply(this, args);
  };
}
