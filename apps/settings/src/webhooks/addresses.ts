import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { LookupFunction } from 'node:net';

/*
 * Where a webhook may not go (SSRF): loopback, private, link-local (cloud metadata at
 * 169.254.169.254 and fd00:ec2::254), carrier-grade NAT, multicast, unspecified and reserved
 * ranges, and IPv4 addresses written as IPv6. Checked when an endpoint is saved and again when
 * each attempt connects, on the address actually connected to (a name may resolve elsewhere by
 * then: DNS rebinding).
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
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** Whether an IP address is one a webhook may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  // an IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address) : null;
  if (mapped) return isForbiddenAddress(mapped[1]);
  if (family === 6 && /^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(address)) {
    const [hi, lo] = address.slice(7).split(':').map((h) => parseInt(h, 16));
    return isForbiddenAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
      if (bad && !allowPrivate) return callback(new ForbiddenAddressError(`${hostname} resolves to ${bad.address}, an address webhooks may not reach`), '', 0);
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
