// A drafting thread's entry in plain JavaScript: a worker does not inherit the TypeScript loader of
// the process that starts it, so it loads the thread's TypeScript through tsx itself.
import { tsImport } from 'tsx/esm/api';

await tsImport('./draft-thread.ts', import.meta.url);
