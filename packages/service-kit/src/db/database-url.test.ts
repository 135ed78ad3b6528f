import { describe, expect, it } from 'vitest';
import { databaseHosts, hostsToTry, rememberWritable, singleHostUrl, withDatabase } from './database-url.js';

describe('multi-host DATABASE_URL', () => {
  it('reads every host, with the default port where none is given', () => {
    expect(databaseHosts('postgres://postgres@127.0.0.1:5432/postgres')).toEqual([{ host: '127.0.0.1', port: 5432 }]);
    expect(databaseHosts('postgresql://u:p%40ss@db-a:6000,db-b,[::1]:6002/x?sslmode=disable')).toEqual([
      { host: 'db-a', port: 6000 },
      { host: 'db-b', port: 5432 },
      { host: '::1', port: 6002 },
    ]);
    expect(databaseHosts('mysql://x')).toEqual([]);
  });

  it('writes a one-host URL the driver can read, and renames the database keeping every host and parameter', () => {
    const url = 'postgres://u:p%40ss@db-a:6000,[::1]:6002/postgres?sslmode=disable';
    expect(singleHostUrl(url, { host: '::1', port: 6002 })).toBe('postgres://u:p%40ss@[::1]:6002/postgres?sslmode=disable');
    expect(withDatabase(url, 'lt_sales')).toBe('postgres://u:p%40ss@db-a:6000,[::1]:6002/lt_sales?sslmode=disable');
    expect(withDatabase('postgres://h:1', 'x')).toBe('postgres://h:1/x');
    expect(() => withDatabase('http://h/x', 'y')).toThrow(/postgres:\/\//);
  });

  it('tries the server that took writes last first, then the others in order', () => {
    const url = 'postgres://u@a:1,b:2,c:3/db';
    expect(hostsToTry(url).map((h) => h.host)).toEqual(['a', 'b', 'c']);
    rememberWritable(`${url}?x=1`, { host: 'c', port: 3 });
    expect(hostsToTry(url).map((h) => h.host)).toEqual(['c', 'a', 'b']);
    rememberWritable(url, { host: 'b', port: 2 });
    expect(hostsToTry(withDatabase(url, 'other')).map((h) => h.host)).toEqual(['b', 'c', 'a']);
  });
});
