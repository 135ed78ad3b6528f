/**
 * The body of an answer from another server (a register, a bank) as UTF-8 text, or null once it
 * passes `limit` bytes: read chunk by chunk and cancelled there, so a server answering without
 * end never holds more than `limit` bytes of ours.
 */
export async function readBoundedText(res: Response, limit: number): Promise<string | null> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}
