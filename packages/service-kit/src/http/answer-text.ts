/*
 * The text of an answer the kit built, kept on the answer itself. A write's unit of work reads its
 * answer after the handler (the audit record's state after, an idempotent replay's stored body).
 * Reading it back through `Response.clone()` cost about 0.2 ms a document and more besides: the
 * clone turns @hono/node-server's lightweight answer, which it writes straight from the string,
 * into a Web Response whose body the server then has to stream through a tee.
 */

const ANSWER_TEXT = Symbol('answerText');

type WithText = Response & { [ANSWER_TEXT]?: string };

/** Keeps `text` as the answer's body text; the answer must have been made from exactly that string. */
export function keepAnswerText(res: Response, text: string): void {
  (res as WithText)[ANSWER_TEXT] = text;
}

/**
 * The answer's body as text, leaving the answer as it is for the server to write: the text kept
 * when the kit made it, else a clone's (an answer made elsewhere, or remade by a middleware,
 * which does not carry the text over).
 */
export async function answerText(res: Response): Promise<string> {
  const kept = (res as WithText)[ANSWER_TEXT];
  return typeof kept === 'string' ? kept : res.clone().text();
}
