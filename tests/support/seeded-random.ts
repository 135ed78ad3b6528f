/**
 * A small deterministic generator of numbers in [0, 1) (xorshift32), so a test's generated cases
 * are the same on every run and a failing one can be made again from its seed.
 */
export function seededRandom(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
