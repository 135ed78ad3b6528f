/**
 * `DATABASE_URL` may name several servers, as libpq's multi-host URLs do
 * (`postgres://user@10.0.0.1:5432,10.0.0.2:5432/db`): a primary and its standbys, of which the
 * services use whichever takes writes. The driver (node-postgres) reads one host only, so the
 * kit picks the host: it tries them in order, starting with the one that took writes last,
 * skips a server in recovery (a standby, `pg_is_in_recovery()`), and so follows a failover to a
 * promoted standby without a new configuration (libpq's `target_session_attrs=read-write`).
 */
export interface DatabaseHost {
  host: string;
  port: number;
}

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/i;

export function databaseHosts(url: string): DatabaseHost[] {
  const m = URL_PARTS.exec(url);
  if (!m) return [];
  return m[3].split(',').map((h) => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(h);
    if (bracketed) return { host: bracketed[1], port: Number(bracketed[2] ?? 5432) };
    const [host, port] = h.split(':');
    return { host: host || '127.0.0.1', port: Number(port || 5432) };
  });
}

/** The URL with one of its hosts only (what the driver and the ORM can read). */
export function singleHostUrl(url: string, host: DatabaseHost): string {
  const m = URL_PARTS.exec(url);
  if (!m) return url;
  const h = host.host.includes(':') ? `[${host.host}]` : host.host;
  return `${m[1]}${m[2] ?? ''}${h}:${host.port}${m[4]}`;
}

/** The URL naming database `name`, every host kept. */
export function withDatabase(url: string, name: string): string {
  const m = URL_PARTS.exec(url);
  if (!m) throw new Error('DATABASE_URL is not a postgres:// URL');
  const rest = m[4].replace(/^\/[^?#]*/, '');
  return `${m[1]}${m[2] ?? ''}${m[3]}/${encodeURIComponent(name)}${rest}`;
}

/** Which host of a URL took writes last, so new connections try it first. */
const lastWritable = new Map<string, number>();

/** The hosts in the order to try them: the last writable one first, then the rest in the URL's order. */
export function hostsToTry(url: string): DatabaseHost[] {
  const hosts = databaseHosts(url);
  const first = lastWritable.get(hostsKey(hosts)) ?? 0;
  return [...hosts.slice(first), ...hosts.slice(0, first)];
}

function hostsKey(hosts: DatabaseHost[]): string {
  return hosts.map((h) => `${h.host}:${h.port}`).join(',');
}

export function rememberWritable(url: string, host: DatabaseHost): void {
  const hosts = databaseHosts(url);
  const i = hosts.findIndex((h) => h.host === host.host && h.port === host.port);
  if (i >= 0) lastWritable.set(hostsKey(hosts), i);
}

/** A server that answered but takes no writes (a standby): the error its connection fails with, a 503 like any unavailable database. */
export function standbyError(host: DatabaseHost): Error {
  return Object.assign(new Error(`the database server at ${host.host}:${host.port} is a standby (in recovery) and takes no writes`), { code: '57P03' });
}

/** Whether the connected server takes writes; asked only when the URL names several servers. */
export async function takesWrites(client: { query(text: string): Promise<{ rows: Array<Record<string, unknown>> }> }): Promise<boolean> {
  const { rows } = await client.query('select pg_is_in_recovery() as standby');
  return rows[0]?.standby === false;
}
