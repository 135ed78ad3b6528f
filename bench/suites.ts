import { INTERNAL_HEADERS } from '@ledgerline/service-kit';
import type { BenchContext } from './run.js';
import { load } from './load.js';
import { spawnProc } from './stack.js';

export interface Benchmark {
  title: string;
  run: (ctx: BenchContext) => Promise<void>;
}

async function waitReadyHello(port: number) {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/hello`)).ok) return;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('hello server did not start');
}

/** 1. Gateway overhead: the same authenticated GET through the gateway, straight to the service, and a bare Hono app. */
const gatewayOverhead: Benchmark = {
  title: 'Gateway overhead (GET /v1/settings/organisation)',
  run: async (ctx) => {
    const seconds = ctx.quick ? 5 : 15;
    const hello = spawnProc('hello', 'bench/hello-hono.ts', 18090, {});
    try {
      await waitReadyHello(18090);
      // warm-up (JIT, connection pools, credential cache)
      await load({ url: `${ctx.stack.gateway}/v1/settings/organisation`, seconds: 2, headers: ctx.auth });
      const bare = await load({ url: 'http://127.0.0.1:18090/hello', seconds });
      const direct = await load({
        url: `${ctx.stack.url('settings')}/v1/settings/organisation`,
        seconds,
        headers: {
          [INTERNAL_HEADERS.orgId]: '1',
          [INTERNAL_HEADERS.scopes]: 'admin',
          [INTERNAL_HEADERS.token]: ctx.stack.internalToken,
        },
      });
      const via = await load({ url: `${ctx.stack.gateway}/v1/settings/organisation`, seconds, headers: ctx.auth });
      ctx.figures.push(
        { name: 'bare Hono hello-world', value: bare.rps, unit: 'req/s', note: `p50 ${bare.p50} ms, p99 ${bare.p99} ms` },
        {
          name: 'service direct (settings)',
          value: direct.rps,
          unit: 'req/s',
          ceiling: bare.rps,
          ceilingName: 'bare Hono',
          ratio: direct.rps / bare.rps,
          note: `p50 ${direct.p50} ms, p99 ${direct.p99} ms`,
        },
        {
          name: 'through gateway (API key)',
          value: via.rps,
          unit: 'req/s',
          ceiling: direct.rps,
          ceilingName: 'direct',
          ratio: via.rps / direct.rps,
          target: '≥ 70 % of direct',
          met: via.rps / direct.rps >= 0.7,
          note: `p50 ${via.p50} ms, p99 ${via.p99} ms, non-2xx ${via.non2xx}`,
        },
        {
          name: 'gateway p99 overhead',
          value: via.p99 - direct.p99,
          unit: 'ms',
          target: '≤ 2 ms',
          met: via.p99 - direct.p99 <= 2,
          note: `gateway p99 ${via.p99} ms vs direct ${direct.p99} ms (same connection count)`,
        },
      );
    } finally {
      hello.child.kill('SIGTERM');
    }
  },
};

export const benchmarks: Benchmark[] = [gatewayOverhead];
