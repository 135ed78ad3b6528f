/**
 * Node flags every service and gateway process is started with (`npm start`, the bench, the
 * images' start.sh). `--max-old-space-size` caps V8's old generation: a service's live heap is
 * ~50–60 MB, but without a cap V8 lets garbage pile up to ~190 MB before a full collection, which
 * put the sales process above 300 MB RSS under load. With the cap it collects earlier and stays
 * near 200 MB. `MAX_OLD_SPACE_MB` overrides the size (docs/decisions/041-v8-old-space-is-capped-at-160-mb.md).
 *
 * The gateway has a cap of its own (decision 178): its live heap is ~22 MB, and under a cap of
 * 1024 MB or less V8 runs a full collection every few hundred milliseconds while large bodies pass
 * through it (their buffers count as memory the heap must answer for), which doubled its CPU per
 * forwarded list page. At 2048 it collects about as often as its small heap needs.
 * `GATEWAY_MAX_OLD_SPACE_MB` overrides it.
 */
export const MAX_OLD_SPACE_MB = Number(process.env.MAX_OLD_SPACE_MB ?? 160);
export const GATEWAY_MAX_OLD_SPACE_MB = Number(process.env.GATEWAY_MAX_OLD_SPACE_MB ?? 2048);

const capped = (mb: number): string[] => (mb > 0 ? [`--max-old-space-size=${mb}`] : []);

/**
 * V8's memory reducer off (decision 262). Once a process has been idle for some seconds the
 * reducer runs full collections and shrinks the heap, which suits a browser tab; a server whose
 * load comes back then serves its first second from a shrunken heap, collecting all the while, and
 * after 35 s idle every quick soak began with 83–135 answers of 503 (the gateway's event loop held
 * 50–146 ms, sales' queue standing) against none with the reducer off. What it costs is the idle
 * process's RSS, which stays where the load left it (under the old-space cap). V8 refuses the flag
 * in NODE_OPTIONS, so it goes on the command line: `npm start`, the bench and the images' start.sh.
 */
export const IDLE_HEAP_FLAGS = ['--no-memory-reducer'];

export const serviceNodeFlags = (): string[] => [...capped(MAX_OLD_SPACE_MB), ...IDLE_HEAP_FLAGS];
export const gatewayNodeFlags = (): string[] => [...capped(GATEWAY_MAX_OLD_SPACE_MB), ...IDLE_HEAP_FLAGS];

/** The flags of one process by its name: the gateway's, or a service's. */
export const nodeFlagsOf = (name: string): string[] => (name === 'gateway' ? gatewayNodeFlags() : serviceNodeFlags());
