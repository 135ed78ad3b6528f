import { describe, expect, it } from 'vitest';
import { answerText } from './answer-text.js';
import { plainAnswer } from './app.js';

describe('answerText', () => {
  it("reads the kit's answer from the text it was made from, leaving its body unread", async () => {
    const res = plainAnswer('{"id":1,"note":"žluťoučký 🐎"}', 200, { 'content-type': 'application/json' }, 'req-1');
    expect(await answerText(res)).toBe('{"id":1,"note":"žluťoučký 🐎"}');
    expect(res.bodyUsed).toBe(false);
    expect(await res.text()).toBe('{"id":1,"note":"žluťoučký 🐎"}');
  });

  it('reads any other answer through a clone, so the answer itself can still be sent', async () => {
    for (const res of [new Response('{"a":"b"}'), plainAnswer(Buffer.from('{"a":"b"}'), 200, {}, undefined)]) {
      expect(await answerText(res)).toBe('{"a":"b"}');
      expect(await res.text()).toBe('{"a":"b"}');
    }
  });
});
