import { parentPort, workerData } from 'node:worker_threads';
import { draftMessages, type DraftSetting, type RawMessage } from './generation-drafts.js';

/* A drafting thread of a ledger rebuild (`DraftThreads`): batches of raw messages in, drafts out. */
const setting = workerData as DraftSetting;
parentPort!.on('message', ({ id, messages }: { id: number; messages: RawMessage[] }) => {
  let answer;
  try {
    answer = { id, results: draftMessages(setting, messages) };
  } catch (err) {
    answer = { id, error: String(err) };
  }
  parentPort!.postMessage(answer);
});
