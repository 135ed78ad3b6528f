import { describe, expect, it } from 'vitest';
import { installedTreeHolds } from './previous-release.js';

const pkg = (version: string) => ({ version, resolved: `https://registry.npmjs.org/x/-/x-${version}.tgz`, integrity: `sha512-${version}` });
type Packages = Record<string, { version?: string; resolved?: string; integrity?: string; link?: boolean }>;
const lock = (packages: Packages): { packages: Packages } => ({ packages: { '': {}, 'packages/core': { version: '0.1.0' }, ...packages } });

describe('whether the working tree holds the previous release packages', () => {
  const release = lock({
    'node_modules/pg': pkg('8.11.0'),
    'node_modules/zod': pkg('3.23.0'),
    'node_modules/@ledgerline/core': { resolved: 'packages/core', link: true },
  });

  it('holds a release whose every package HEAD installs at the same path, version and checksum, beside packages HEAD added', () => {
    const head = lock({ ...release.packages, 'node_modules/pg-copy-streams': pkg('7.0.0'), 'node_modules/@ledgerline/documents': { resolved: 'packages/documents', link: true } });
    expect(installedTreeHolds(head, release)).toBe(true);
  });

  it('does not hold one whose package HEAD dropped, upgraded or took from elsewhere', () => {
    const { 'node_modules/zod': _zod, ...withoutZod } = release.packages;
    expect(installedTreeHolds(lock(withoutZod), release)).toBe(false);
    expect(installedTreeHolds(lock({ ...release.packages, 'node_modules/zod': pkg('3.24.0') }), release)).toBe(false);
    expect(installedTreeHolds(lock({ ...release.packages, 'node_modules/zod': { ...pkg('3.23.0'), integrity: 'sha512-other' } }), release)).toBe(false);
    expect(installedTreeHolds(lock({ ...release.packages, 'node_modules/@ledgerline/core': { resolved: 'apps/core', link: true } }), release)).toBe(false);
  });

  it('does not hold one where HEAD nests a package inside one of the release, which would shadow the release copy', () => {
    const head = lock({ ...release.packages, 'node_modules/pg/node_modules/zod': pkg('4.0.0') });
    expect(installedTreeHolds(head, release)).toBe(false);
    // nested inside a package only HEAD has: the release never reaches it
    expect(installedTreeHolds(lock({ ...release.packages, 'node_modules/pg-copy-streams': pkg('7.0.0'), 'node_modules/pg-copy-streams/node_modules/zod': pkg('4.0.0') }), release)).toBe(true);
  });

  it('does not hold one whose workspace carries packages of its own', () => {
    expect(installedTreeHolds(lock(release.packages), lock({ ...release.packages, 'apps/sales/node_modules/pdfkit': pkg('0.15.0') }))).toBe(false);
  });
});
