import { describe, expect, it } from 'vitest';
import { transformSync } from 'esbuild';
import { TransactionContext, UnitOfWork } from '@mikro-orm/core';
import { codeFingerprint } from './async-context.js';

/*
 * The replacements of MikroORM's async contexts are installed only over the code they were written
 * against, compared by fingerprint (decisions 128, 268). The fingerprint must survive what a
 * bundler does to that code, and nothing else.
 */
const commit = (UnitOfWork.prototype as unknown as { commit: () => unknown }).commit.toString();
const create = (TransactionContext as unknown as { create: () => unknown }).create.toString();

/** A method's source as esbuild writes it again (its own indentation, quotes and line breaks). */
const rewritten = (method: string) => {
  const code = transformSync(`class X { ${method} }`, { loader: 'js', target: 'node20' }).code;
  return code.slice(code.indexOf('{') + 1, code.lastIndexOf('}')).trim();
};

describe('codeFingerprint', () => {
  it("is the same for MikroORM's methods as installed and as esbuild writes them", () => {
    expect(rewritten(commit)).not.toBe(commit);
    expect(codeFingerprint(rewritten(commit))).toBe(codeFingerprint(commit));
    expect(codeFingerprint(rewritten(create))).toBe(codeFingerprint(create));
  });

  it('is the same for names a bundler renames: trailing digits, an underscore before a class name', () => {
    const source = 'static create(em, next) {\n    const context = new TransactionContext(em);\n    return this.storage.run(context, next);\n  }';
    const bundled = 'static create(em, next) {\n        const context = new _TransactionContext(em);\n        return this.storage.run(context, next);\n      }';
    expect(codeFingerprint(bundled)).toBe(codeFingerprint(source));
    expect(codeFingerprint('new Promise((resolve2, reject) => f(resolve2, reject))')).toBe(codeFingerprint('new Promise((resolve, reject) => f(resolve, reject))'));
  });

  it('is the same without comments, and with either kind of quote', () => {
    expect(codeFingerprint("f(/* why */ 'default'); // because\ng()")).toBe(codeFingerprint('f("default");\ng()'));
    // a line comment's slashes inside a string stay
    expect(codeFingerprint('u("http://x")')).toBe('u("http://x")');
  });

  it('differs when the code does something else', () => {
    const fp = codeFingerprint(commit);
    expect(codeFingerprint(commit.replace('insideFlush.run(true, () => this.doCommit())', 'this.doCommit()'))).not.toBe(fp);
    expect(codeFingerprint(commit.replace('this.working = true', 'this.busy = true'))).not.toBe(fp);
    expect(codeFingerprint(commit.replace('this.working = false', 'this.working = true'))).not.toBe(fp);
    expect(codeFingerprint(create.replace('this.storage.run(context, next)', 'next()'))).not.toBe(codeFingerprint(create));
    // a name that differs by more than a bundler's suffix is another name
    expect(codeFingerprint('a.flushQueue')).not.toBe(codeFingerprint('a.flushQueues'));
    expect(codeFingerprint('_privateThing')).not.toBe(codeFingerprint('privateThing'));
  });
});
