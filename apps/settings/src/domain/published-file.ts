/*
 * A file a public body publishes (a central bank's rates, its repo-rate history), fetched as the
 * fetchers of settings fetch it: three tries, 1 s and 4 s apart, each bounded in time; a file that
 * came but is not what it should be (`isFinal`) is not fetched again until the next look.
 */
export async function downloadPublished<T>(url: string, timeoutMs: number, parse: (bytes: Uint8Array) => T, isFinal: (err: unknown) => boolean): Promise<{ file: T } | { error: unknown }> {
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 250 * 4 ** attempt));
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return { file: parse(new Uint8Array(await res.arrayBuffer())) };
    } catch (err) {
      last = err;
      if (isFinal(err)) break;
    }
  }
  return { error: last };
}
