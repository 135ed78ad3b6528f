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
  static ofList(head: string, items: readonly JsonItem[], tail: string): JsonText {
    const json = new JsonText('');
    json.#text = undefined;
    json.#list = { head, items, tail };
    return json;
  }

  /** The JSON as one string (joined from the list's parts on first use). */
  get text(): string {
    if (this.#text === undefined) {
      const { head, items, tail } = this.#list as JsonList;
      this.#text = `${head}${items.map((item) => (typeof item === 'string' ? item : splicedString(item))).join(',')}${tail}`;
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

/**
 * A JSON text with stretches of it replaced as it is written (a stored view whose marks are filled
 * at answer time): `cuts` holds each stretch's start and end (UTF-16 indexes, the end exclusive,
 * in order, not overlapping, every character in them ASCII), `fills` the UTF-8 written in the
 * place of each. Written straight into the answer's buffer, no filled string is ever made: a
 * page's hundred views filled into strings, then measured and encoded, cost three times as
 * much CPU as writing their pieces (issue 79).
 */
export interface SplicedJson {
  text: string;
  cuts: readonly number[];
  fills: readonly Uint8Array[];
}

/** An item of a list: a JSON text, or one with stretches replaced. */
export type JsonItem = string | SplicedJson;

interface JsonList {
  head: string;
  items: readonly JsonItem[];
  tail: string;
}

const COMMA = 0x2c;

function utf8OfList({ head, items, tail }: JsonList, allocate: (size: number) => Buffer): Buffer {
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) size += typeof item === 'string' ? Buffer.byteLength(item) : splicedSize(item);
  const out = allocate(size);
  let at = out.write(head, 0);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = COMMA;
    const item = items[i];
    at = typeof item === 'string' ? at + out.write(item, at) : writeSpliced(item, out, at);
  }
  at += out.write(tail, at);
  // every byte is written: what an unzeroed or reused buffer held before never leaves
  if (at !== size) throw new Error(`JSON list encoded to ${at} bytes, measured ${size}`);
  return out;
}

/** The UTF-8 size of a spliced text: the text's, less its cuts (ASCII: a byte a character), plus the fills'. */
function splicedSize({ text, cuts, fills }: SplicedJson): number {
  if (cuts.length !== 2 * fills.length) throw new Error(`a spliced JSON text has ${cuts.length / 2} cuts and ${fills.length} fills`);
  let size = Buffer.byteLength(text);
  for (let i = 0; i < fills.length; i++) size += fills[i].length - (cuts[2 * i + 1] - cuts[2 * i]);
  return size;
}

function writeSpliced({ text, cuts, fills }: SplicedJson, out: Buffer, at: number): number {
  let from = 0;
  for (let i = 0; i < fills.length; i++) {
    at += out.write(text.slice(from, cuts[2 * i]), at);
    out.set(fills[i], at);
    at += fills[i].length;
    from = cuts[2 * i + 1];
  }
  return at + out.write(from === 0 ? text : text.slice(from), at);
}

/** A spliced text as one string (what `JsonText.text` answers; never on an answer's path). */
function splicedString({ text, cuts, fills }: SplicedJson): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < fills.length; i++) {
    out += text.slice(from, cuts[2 * i]) + Buffer.from(fills[i].buffer, fills[i].byteOffset, fills[i].length).toString('utf8');
    from = cuts[2 * i + 1];
  }
  return out + text.slice(from);
}
