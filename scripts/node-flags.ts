/**
 * Node flags every service and gateway process is started with (`npm start`, the bench, Docker
 * via NODE_OPTIONS). `--max-old-space-size` caps V8's old generation: a service's live heap is
 * ~50–60 MB, but without a cap V8 lets garbage pile up to ~190 MB before a full collection, which
 * put the sales process above 300 MB RSS under load. With the cap it collects earlier and stays
 * near 200 MB. `MAX_OLD_SPACE_MB` overrides the size (docs/decisions.md).
 */
export const MAX_OLD_SPACE_MB = Number(process.env.MAX_OLD_SPACE_MB ?? 160);

export const serviceNodeFlags = (): string[] => (MAX_OLD_SPACE_MB > 0 ? [`--max-old-space-size=${MAX_OLD_SPACE_MB}`] : []);
