/**
 * A JSON value already serialised (a document body that is also the event's data): written as is
 * instead of being serialised a second time. Its own module, with no imports, so the HTTP layer
 * (and the gateway, which has no database) can answer one without loading the database layer.
 */
export class JsonText {
  #text: string | undefined;
  #list: JsonList | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  /**
   * `head`, the items separated by commas, then `tail` (a page of stored views: `{…"entities":[`,
   * the views, `],…}`), kept apart until answered: `answerBody` encodes them once into one buffer. A
   * page's 300 KB joined into a string, measured by the server for its length and encoded again
   * on the socket cost a tenth of a millisecond per pass (issue 79).
   */
  static ofList(head: string, items: readonly string[], tail: string): JsonText {
    const json = new JsonText('');
    json.#text = undefined;
    json.#list = { head, items, tail };
    return json;
  }

  /** The JSON as one string (joined from the list's parts on first use). */
  get text(): string {
    if (this.#text === undefined) {
      const { head, items, tail } = this.#list as JsonList;
      this.#text = `${head}${items.join(',')}${tail}`;
    }
    return this.#text;
  }

  /**
   * What an answer writes: the text, or a list's parts encoded as UTF-8 into one buffer of their
   * exact size, taken from `allocate` (a buffer used again once the answer is sent, issue 79).
   */
  answerBody(allocate: (size: number) => Buffer = Buffer.allocUnsafe): string | Buffer {
    return this.#text ?? utf8OfList(this.#list as JsonList, allocate);
  }
}

interface JsonList {
  head: string;
  items: readonly string[];
  tail: string;
}

const COMMA = 0x2c;

function utf8OfList({ head, items, tail }: JsonList, allocate: (size: number) => Buffer): Buffer {
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) size += Buffer.byteLength(item);
  const out = allocate(size);
  let at = out.write(head, 0);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = COMMA;
    at += out.write(items[i], at);
  }
  at += out.write(tail, at);
  // every byte is written: what an unzeroed or reused buffer held before never leaves
  if (at !== size) throw new Error(`JSON list encoded to ${at} bytes, measured ${size}`);
  return out;
}
