import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { LookupFunction } from 'node:net';

/*
 * Where a webhook may not go (SSRF): loopback, private, link-local (cloud metadata at
 * 169.254.169.254 and fd00:ec2::254), carrier-grade NAT, multicast, unspecified and reserved
 * ranges, and every IPv6 form that carries an IPv4 address a router may turn back into it
 * (IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96` and
 * `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo `2001::/32`); an IPv4-mapped address
 * (`::ffff:a.b.c.d`, however written) is judged as the IPv4 address it is. Checked when an
 * endpoint is saved and again when each attempt connects, on the address actually connected to
 * (a name may resolve elsewhere by then: DNS rebinding).
 */
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address in any spelling (`::`, an IPv4 tail, upper case); null when it is none. */
export function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const parts = (x: string) => (x === '' ? [] : x.split(':').map((h) => parseInt(h, 16)));
  const left = parts(head);
  const right = tail === null ? [] : parts(tail);
  return tail === null ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

/** Whether an IP address is one a webhook may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return blocked.check(address, 'ipv4');
  const g = ipv6Groups(address)!;
  // IPv4-mapped, in whatever spelling: the IPv4 address it is
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return isForbiddenAddress(`${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`);
  return blocked.check(g.map((x) => x.toString(16)).join(':'), 'ipv6');
}

export class ForbiddenAddressError extends Error {
  readonly code = 'EWEBHOOKADDRESS';
}

/**
 * A `lookup` for http(s).request that resolves the name and refuses the connection when any
 * address it resolves to is forbidden (unless private addresses are allowed).
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as Array<{ address: string; family: number }>;
      const bad = list.find((a) => isForbiddenAddress(a.address));
      // the address is not named: a refusal must not tell the sender what a name resolves to inside
      if (bad && !allowPrivate) return callback(new ForbiddenAddressError(`${hostname} resolves to a loopback, private, link-local or reserved address, which webhooks may not reach`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** Resolves a host (a name or a literal) to all its addresses. */
export function resolveAll(host: string): Promise<string[]> {
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(literal)) return Promise.resolve([literal]);
  return new Promise((resolve, reject) => {
    dnsLookup(literal, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address))));
  });
}
