import { createHash } from 'node:crypto';
import { TransactionContext, UnitOfWork, type EntityManager, type EntityName, type FilterQuery, type FindOptions } from '@mikro-orm/core';

/*
 * Node 20 pays for `AsyncLocalStorage` in every process that has used one, for as long as it
 * lives: the first `run()` enables async hooks, and from then on every promise created anywhere
 * calls into them. MikroORM enters one on every flush (a `UnitOfWork.commit` marks itself "inside
 * a flush"), on every `em.transactional()` (the transaction's fork, for code that uses the global
 * entity manager inside it) and in `em.findAndCount()` (raw fragments to forget afterwards). Our
 * code needs none of them: every entity manager it uses is a fork passed by hand, and the global
 * one refuses context-dependent work (`allowGlobalContext: false`). With them gone, no process
 * enables async hooks unless tracing records; CPU per credit note fell by 12-15 % (decision 128).
 *
 * Each replacement is installed only over the exact code of the method it replaces, as MikroORM
 * 6.6.16 ships it (compared by the hash of its fingerprint): an upgrade that changes either method
 * keeps the library's own, and the test that no store is entered fails, so the change is looked
 * at rather than silently overridden.
 *
 * The processes run from bundles (decision 257), in which esbuild has written the library's code
 * again: indented its own way, names that collide renamed (`resolve` → `resolve2`, the class
 * `TransactionContext` → `_TransactionContext` where its own methods name it). A hash of the
 * source as written matched in `node_modules` and never in a bundle, so every bundled process ran
 * with the library's stores, and async hooks on (decision 268). The fingerprint is the code
 * without comments or whitespace, quotes made one kind, and each name without a leading
 * underscore before a capital or trailing digits: what a bundler changes, and nothing a reader of
 * the code would call a different method.
 */

/** sha256 (first 16 hex digits) of each replaced method's fingerprint in MikroORM 6.6.16. */
const UNIT_OF_WORK_COMMIT_FINGERPRINT = 'ce17ca76470818b9';
const TRANSACTION_CONTEXT_CREATE_FINGERPRINT = 'd68f2233caa540d3';

/** A method's code as a bundler leaves it comparable (above): no comments or whitespace, one kind of quote, names without the suffixes and prefixes a bundler adds. */
export function codeFingerprint(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:"'`\\])\/\/[^\n]*/g, '$1')
    .replace(/[A-Za-z_$][\w$]*/g, (name) => name.replace(/^_(?=[A-Z])/, '').replace(/(?<=[A-Za-z_$])\d+$/, ''))
    .replace(/\s+/g, '')
    .replace(/'/g, '"');
}

const fingerprintHash = (fn: (...args: never[]) => unknown) => createHash('sha256').update(codeFingerprint(fn.toString())).digest('hex').slice(0, 16);

interface UnitOfWorkInternals {
  working: boolean;
  flushQueue: Array<() => Promise<void>>;
  doCommit(): Promise<void>;
  postCommitCleanup(): void;
}

/**
 * MikroORM 6.6's `UnitOfWork.commit` without its async context: a flush asked for while one runs
 * on the same entity manager waits its turn, as before. What is lost is the library's check that
 * a flush is not asked for from inside a flush's own hooks (it would wait for itself); the kit
 * registers no flush or entity lifecycle hooks, and the service guide says why none may be added.
 */
async function commitWithoutAsyncContext(this: UnitOfWorkInternals): Promise<void> {
  if (this.working) {
    return new Promise<void>((resolve, reject) => {
      this.flushQueue.push(() => this.doCommit().then(resolve, reject));
    });
  }
  try {
    this.working = true;
    await this.doCommit();
    while (this.flushQueue.length) await this.flushQueue.shift()!();
  } finally {
    this.postCommitCleanup();
    this.working = false;
  }
}

/** `TransactionContext.create` without its async context: the transaction's fork is passed to the callback, as always. */
function createWithoutAsyncContext<T>(_em: EntityManager, next: (...args: unknown[]) => T): T {
  return next();
}

export interface AsyncContextReplacements {
  unitOfWorkCommit: boolean;
  transactionContext: boolean;
}

let installed: AsyncContextReplacements | null = null;

/** Installs the replacements once per process; answers which ones are in place. */
export function withoutOrmAsyncContext(): AsyncContextReplacements {
  if (installed) return installed;
  const uow = UnitOfWork.prototype as unknown as { commit: (...args: unknown[]) => unknown };
  const unitOfWorkCommit = fingerprintHash(uow.commit) === UNIT_OF_WORK_COMMIT_FINGERPRINT;
  if (unitOfWorkCommit) uow.commit = commitWithoutAsyncContext;
  const tc = TransactionContext as unknown as { create: (...args: unknown[]) => unknown };
  const transactionContext = fingerprintHash(tc.create) === TRANSACTION_CONTEXT_CREATE_FINGERPRINT;
  if (transactionContext) tc.create = createWithoutAsyncContext as (...args: unknown[]) => unknown;
  installed = { unitOfWorkCommit, transactionContext };
  return installed;
}

/**
 * A page of entities and the count of all that match, as `em.findAndCount()` answers them but
 * without the async context it enters (see above): both read with the same options, as the
 * library's do, and the find's auto-flush is not repeated for the count.
 */
export async function findAndCount<T extends object, P extends string = never>(
  em: EntityManager,
  entityName: EntityName<T>,
  where: FilterQuery<T>,
  options: FindOptions<T, P> = {},
): Promise<[T[], number]> {
  const rows = await em.find(entityName, where, options);
  const total = await em.count(entityName, where, { ...options, flushMode: 'commit' } as never);
  return [rows as T[], total];
}
