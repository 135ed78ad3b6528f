import type { ServerResponse } from 'node:http';

/**
 * Buffers that large answers (a page of 100 stored views, some 300 KB) are written into, used
 * again once the server has handed the answer to the socket. A fresh buffer each answer is
 * memory outside V8's heap that only a collection gives back: at a few hundred pages a second
 * that pressure ran a full collection of the service's heap several times a second (31 against 5
 * in a quick list bench), undoing what writing the page once had saved (issue 79).
 */

/** Answers smaller than this come from Node's own allocator: their pressure is small. */
const SMALLEST_KEPT = 64 * 1024;
/** Answers larger than this (a page of a thousand) get a buffer of their own, left to the collector. */
const LARGEST_KEPT = 4 * 1024 * 1024;
/** Bytes kept for reuse at most, over all sizes: a bound on what the pool holds between bursts. */
const DEFAULT_MAX_KEPT_BYTES = 16 * 1024 * 1024;

/** A buffer of the size asked for and how to give it back; `release` is called once nothing reads it. */
export interface TakenBuffer {
  bytes: Buffer;
  release: () => void;
}

const nothingToRelease = () => {};

/** Buffers by size class (powers of two), kept up to a bound. */
export class AnswerBuffers {
  readonly #free = new Map<number, Buffer[]>();
  #keptBytes = 0;

  constructor(readonly maxKeptBytes = DEFAULT_MAX_KEPT_BYTES) {}

  /** Bytes kept for reuse now. */
  get keptBytes(): number {
    return this.#keptBytes;
  }

  /** `size` bytes whose contents are undefined (the caller writes every one). */
  take(size: number): TakenBuffer {
    if (size < SMALLEST_KEPT || size > LARGEST_KEPT) return { bytes: Buffer.allocUnsafe(size), release: nothingToRelease };
    const sizeClass = 2 ** Math.ceil(Math.log2(size));
    const kept = this.#free.get(sizeClass)?.pop();
    if (kept) this.#keptBytes -= sizeClass;
    const whole = kept ?? Buffer.allocUnsafeSlow(sizeClass);
    let released = false;
    return {
      bytes: whole.subarray(0, size),
      release: () => {
        if (released) return;
        released = true;
        this.#keep(sizeClass, whole);
      },
    };
  }

  #keep(sizeClass: number, whole: Buffer): void {
    if (this.#keptBytes + sizeClass > this.maxKeptBytes) return;
    const free = this.#free.get(sizeClass) ?? [];
    free.push(whole);
    this.#free.set(sizeClass, free);
    this.#keptBytes += sizeClass;
  }
}

/**
 * How an answer about to be written to `outgoing` gets its buffer: from `buffers`, given back when
 * the response emits 'finish' (its last bytes handed to the operating system, so nothing reads
 * the buffer any more). A response that never finishes (the client went away) keeps its buffer,
 * which the collector then takes. Without a Node response (an in-process `app.request`) a buffer
 * of its own, as nothing says when the caller is done with it.
 */
export function answerAllocator(buffers: AnswerBuffers, outgoing: ServerResponse | undefined): (size: number) => Buffer {
  if (!outgoing) return (size) => Buffer.allocUnsafe(size);
  return (size) => {
    const { bytes, release } = buffers.take(size);
    if (release !== nothingToRelease) outgoing.once('finish', release);
    return bytes;
  };
}
