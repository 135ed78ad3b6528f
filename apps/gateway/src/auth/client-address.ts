import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';

/**
 * The address a request came from. `X-Forwarded-For` is believed only when the connection comes
 * from a configured proxy (`TRUSTED_PROXIES`), and then only up to the first hop that is not
 * one of ours: whatever a client writes into the header itself cannot choose its address.
 */
export class ClientAddressResolver {
  private readonly trusted = new BlockList();
  private readonly any: boolean;

  /** `spec`: comma-separated IPs and CIDR blocks (`10.0.0.0/8, ::1`); empty trusts no proxy. */
  constructor(spec: string | undefined) {
    const entries = (spec ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    for (const e of entries) {
      const [ip, bits] = e.split('/');
      const family = isIP(ip);
      if (!family) throw new Error(`TRUSTED_PROXIES: "${e}" is not an IP address or CIDR block`);
      const type = family === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.trusted.addAddress(ip, type);
      else {
        const prefix = Number(bits);
        if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) throw new Error(`TRUSTED_PROXIES: "${e}" has a bad prefix length`);
        this.trusted.addSubnet(ip, prefix, type);
      }
    }
    this.any = entries.length > 0;
  }

  isTrusted(address: string): boolean {
    if (!this.any) return false;
    const a = normalise(address);
    const family = isIP(a);
    return family !== 0 && this.trusted.check(a, family === 6 ? 'ipv6' : 'ipv4');
  }

  resolve(c: Context): string {
    const peer = normalise(socketAddress(c) ?? 'unknown');
    if (!this.isTrusted(peer)) return peer;
    const hops = (c.req.header('x-forwarded-for') ?? '').split(',').map((h) => normalise(h.trim())).filter(Boolean);
    // right to left: the last hop not added by one of our proxies is the client
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!isIP(hops[i])) return peer;
      if (!this.isTrusted(hops[i])) return hops[i];
    }
    return hops[0] ?? peer;
  }
}

function normalise(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function socketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
