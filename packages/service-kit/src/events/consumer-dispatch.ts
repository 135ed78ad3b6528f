import type { JsMsg } from '@nats-io/jetstream';

/** What a delivered message is to be: its ordering key (null: none) and its handling. */
export interface Dispatch {
  key: string | null;
  run: () => Promise<void>;
}

/**
 * Hands the messages of one consumption to their handling, at most `limit` at a time, and those
 * of one ordering key one after another in delivery order (each waits for the last of its key).
 * `route` answers null for a message it settled itself (passed over). Ends when the messages do or
 * `stopped()` says so (a message left unacknowledged is redelivered to the next consumption),
 * once every handling it started has settled.
 */
export async function dispatchInOrder(messages: AsyncIterable<JsMsg>, limit: number, stopped: () => boolean, route: (m: JsMsg) => Dispatch | null): Promise<void> {
  const running = new Set<Promise<void>>();
  // the last task of each ordering key: a message of the same key waits for it
  const tails = new Map<string, Promise<void>>();
  try {
    for await (const m of messages) {
      if (stopped()) break;
      const d = route(m);
      if (!d) continue;
      const { key, run } = d;
      const prev = key === null ? undefined : tails.get(key);
      const task: Promise<void> = (prev ? prev.then(run, run) : run()).finally(() => {
        running.delete(task);
        if (key !== null && tails.get(key) === task) tails.delete(key);
      });
      if (key !== null) tails.set(key, task);
      running.add(task);
      if (running.size >= limit) await Promise.race(running);
      if (stopped()) break;
    }
  } finally {
    await Promise.allSettled([...running]);
  }
}
