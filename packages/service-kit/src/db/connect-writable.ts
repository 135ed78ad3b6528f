import pg from 'pg';
import { markDatabaseError } from './connection-loss.js';
import { hostsToTry, rememberWritable, singleHostUrl, standbyError, takesWrites } from './database-url.js';

/**
 * A client connected to the server of `url` that takes writes, tried host by host. The error of
 * the last host tried is thrown, marked as the database's (503) when none could be had.
 */
export async function connectWritable(url: string, config: Omit<pg.ClientConfig, 'connectionString'> = {}): Promise<pg.Client> {
  const hosts = hostsToTry(url);
  let last: unknown = new Error('DATABASE_URL names no server');
  for (const host of hosts) {
    const client = new pg.Client({ ...config, connectionString: singleHostUrl(url, host) });
    try {
      await client.connect();
      if (hosts.length > 1 && !(await takesWrites(client))) {
        await client.end().catch(() => undefined);
        last = standbyError(host);
        continue;
      }
      if (hosts.length > 1) rememberWritable(url, host);
      return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      last = err;
    }
  }
  throw markDatabaseError(last);
}
