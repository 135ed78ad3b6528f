import { Worker } from 'node:worker_threads';
import { draftMessages, type DraftResult, type DraftSetting, type RawMessage } from './generation-drafts.js';

/** The thread's entry: plain JavaScript that loads `draft-thread.ts` through tsx (a worker does not inherit the process's loader). */
const THREAD_URL = new URL('./draft-thread.mjs', import.meta.url);

interface Thread {
  worker: Worker;
  /** Batches it drafted. */
  drafted: number;
  waiting: Map<number, { resolve: (r: DraftResult[]) => void; reject: (err: Error) => void }>;
  failed: Error | null;
}

/**
 * Worker threads that draft a rebuild's batches (decision 245), each batch to the next thread in
 * turn. A thread that cannot start or dies leaves its batches to this thread (`draftMessages`
 * here): the rebuild is slower, never different. With no threads every batch is drafted here.
 */
export class DraftThreads {
  private readonly threads: Thread[] = [];
  private next = 0;
  private nextId = 1;

  constructor(
    private readonly setting: DraftSetting,
    count: number,
  ) {
    for (let i = 0; i < count; i++) this.threads.push(this.start());
  }

  private start(): Thread {
    // no flags of the rebuild's process (a profiler's, a test runner's)
    const worker = new Worker(THREAD_URL, { workerData: this.setting, execArgv: [] });
    const thread: Thread = { worker, drafted: 0, waiting: new Map(), failed: null };
    const fail = (err: Error) => {
      thread.failed ??= err;
      for (const w of thread.waiting.values()) w.reject(err);
      thread.waiting.clear();
    };
    worker.on('message', (answer: { id: number; results?: DraftResult[]; error?: string }) => {
      const waiter = thread.waiting.get(answer.id);
      thread.waiting.delete(answer.id);
      if (answer.results) {
        thread.drafted++;
        waiter?.resolve(answer.results);
      }
      else waiter?.reject(new Error(answer.error));
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`a drafting thread ended (${code})`)));
    return thread;
  }

  /** The batch's drafts, in its order. */
  async draft(messages: RawMessage[]): Promise<DraftResult[]> {
    const live = this.threads.filter((t) => !t.failed);
    if (live.length === 0) return draftMessages(this.setting, messages);
    const thread = live[this.next++ % live.length];
    const id = this.nextId++;
    try {
      return await new Promise<DraftResult[]>((resolve, reject) => {
        thread.waiting.set(id, { resolve, reject });
        thread.worker.postMessage({ id, messages });
      });
    } catch {
      return draftMessages(this.setting, messages);
    }
  }

  /** Threads that drafted at least one batch. */
  get working(): number {
    return this.threads.filter((t) => t.drafted > 0).length;
  }

  /** Why threads stopped drafting, if any did. */
  get failures(): string[] {
    return this.threads.flatMap((t) => (t.failed ? [t.failed.message] : []));
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
