import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * The pure packages (document arithmetic, compliance rules, rendering) build on @ledgerline/core
 * and the contracts only: importing the service kit would drag Hono, MikroORM and NATS into code
 * that has no business with them (issue 12).
 */

const root = path.resolve(import.meta.dirname, '../..');
const FORBIDDEN = [/from '@ledgerline\/service-kit/, /from 'hono/, /from '@mikro-orm\//, /from '@nats-io\//];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(ts|mjs)$/.test(e.name) && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

describe('layering', () => {
  it.each(['core', 'documents', 'compliance', 'rendering', 'contracts'])('%s imports no service code', (pkg) => {
    const offenders = sources(path.join(root, pkg, 'src')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => FORBIDDEN.some((re) => re.test(line)))
        .map((line) => `${path.relative(root, file)}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
