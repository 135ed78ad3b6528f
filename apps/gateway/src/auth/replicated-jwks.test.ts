import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, jwtVerify, errors as joseErrors, type JWK } from 'jose';
import { UpstreamSet } from '../proxy/upstream-set.js';
import { ReplicatedJwks } from './replicated-jwks.js';

/*
 * The gateway verifies access tokens with whichever settings replica answers for the keys: a
 * replica that is down is skipped, a key rotated since the last fetch is fetched again, and with no
 * replica answering (and nothing fetched before) verification is JWKSTimeout, never a wrong answer.
 */

let served: JWK[] = [];
let asked = 0;
let server: Server;
let liveUrl: string;
const deadUrl = 'http://127.0.0.1:9'; // discard port: nothing listens

beforeAll(async () => {
  server = createServer((req, res) => {
    asked++;
    if (req.url !== '/internal/jwks' || req.headers['x-internal'] !== 'secret') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  liveUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function signer(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
  const sign = () => new SignJWT({ org: 1 }).setProtectedHeader({ alg: 'EdDSA', kid }).setIssuedAt().setExpirationTime('5m').sign(privateKey);
  return { jwk, sign };
}

describe('ReplicatedJwks', () => {
  it('skips a replica that is down, caches the set, and fetches again for a rotated key', async () => {
    const first = await signer('k1');
    served = [first.jwk];
    const jwks = new ReplicatedJwks(new UpstreamSet('settings', [deadUrl, liveUrl]), { 'x-internal': 'secret' }, 60_000, 0);
    await expect(jwtVerify(await first.sign(), jwks.resolve)).resolves.toMatchObject({ payload: { org: 1 } });
    const afterFirst = asked;
    await jwtVerify(await first.sign(), jwks.resolve);
    expect(asked).toBe(afterFirst); // cached

    const second = await signer('k2');
    served = [first.jwk, second.jwk];
    await expect(jwtVerify(await second.sign(), jwks.resolve)).resolves.toMatchObject({ payload: { org: 1 } });
    expect(asked).toBe(afterFirst + 1);

    // a token of a key no replica serves is refused, not accepted
    const stranger = await signer('k3');
    await expect(jwtVerify(await stranger.sign(), jwks.resolve)).rejects.toBeInstanceOf(joseErrors.JWKSNoMatchingKey);
  });

  it('with no replica answering and nothing fetched before, verification times out (503), never passes', async () => {
    const jwks = new ReplicatedJwks(new UpstreamSet('settings', [deadUrl]), {}, 60_000, 0, 500);
    const { sign } = await signer('k1');
    await expect(jwtVerify(await sign(), jwks.resolve)).rejects.toBeInstanceOf(joseErrors.JWKSTimeout);
  });
});
