import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RenderRequest } from './engine.js';

/**
 * Limits of one render of a user template (decision 51). A render that breaks one of them is
 * stopped and answered as `template_limit_exceeded` naming the limit; the service and every
 * other request carry on, because the template ran in a render process and only that process dies.
 */
export interface SandboxLimits {
  /** V8 heap cap of a render process, MB (heap exhaustion ends that process, not the service). */
  heapMb: number;
  /** Wall-clock time of one render, ms; past it the render process is killed. */
  timeMs: number;
  /** Characters of rendered HTML. */
  outputChars: number;
  /** Render processes working at once. */
  workers: number;
  /** Renders waiting for a process; beyond it the render is refused at once as busy. */
  queue: number;
  /** An idle render process ends after this long (its memory goes back to the system). */
  idleMs: number;
}

export const SANDBOX_LIMITS: SandboxLimits = { heapMb: 64, timeMs: 3_000, outputChars: 5_000_000, workers: 2, queue: 64, idleMs: 60_000 };

export type SandboxLimitName = 'memory' | 'render_time' | 'output_size' | 'template_size' | 'busy';

/** A render stopped by a limit (`limit` names it) or by the template itself (`limit` null). */
export class SandboxRenderError extends Error {
  constructor(
    message: string,
    readonly limit: SandboxLimitName | null,
  ) {
    super(message);
    this.name = 'SandboxRenderError';
  }
}

interface Job {
  request: RenderRequest;
  resolve: (html: string) => void;
  reject: (err: Error) => void;
}

interface Slot {
  child: ChildProcess;
  ready: Promise<void>;
  idleTimer?: NodeJS.Timeout;
}

interface WorkerMessage {
  ready?: boolean;
  id?: number;
  html?: string;
  error?: { limit: SandboxLimitName | null; message: string };
}

const WORKER_PATH = fileURLToPath(new URL('./render-worker.mjs', import.meta.url));

/**
 * A small pool of render processes. Worker threads with `resourceLimits` were the first choice,
 * but on Node 20 a worker that exhausts its heap while growing an array takes the whole process
 * down ("FATAL ERROR: Reached heap limit"), which is exactly the failure this exists to contain;
 * a child process with its own heap cap dies alone.
 */
export class RenderSandbox {
  private idle: Slot[] = [];
  private running = 0;
  private queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(readonly limits: SandboxLimits = SANDBOX_LIMITS) {}

  render(request: RenderRequest): Promise<string> {
    if (this.closed) return Promise.reject(new SandboxRenderError('the renderer is shut down', 'busy'));
    return new Promise<string>((resolve, reject) => {
      const job = { request, resolve, reject };
      if (this.running < this.limits.workers) void this.run(job);
      else if (this.queue.length < this.limits.queue) this.queue.push(job);
      else reject(new SandboxRenderError(`${this.limits.queue} renders are already waiting`, 'busy'));
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.idle.splice(0)) {
      clearTimeout(s.idleTimer);
      s.child.kill('SIGKILL');
    }
  }

  private spawn(): Slot {
    const child = fork(WORKER_PATH, [], {
      execArgv: [`--max-old-space-size=${this.limits.heapMb}`, '--max-semi-space-size=8'],
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    });
    // errors are handled per render; one arriving between renders must not become an uncaught 'error' event
    child.on('error', () => undefined);
    child.unref();
    (child as unknown as { channel?: { unref(): void } }).channel?.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: WorkerMessage) => {
        if (m?.ready) {
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve();
        }
      };
      const onExit = (code: number | null) => reject(new SandboxRenderError(`the renderer could not start (exit ${code})`, 'busy'));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
    return { child, ready };
  }

  private async run(job: Job): Promise<void> {
    this.running++;
    let slot = this.idle.pop();
    if (slot?.idleTimer) clearTimeout(slot.idleTimer);
    let reusable = false;
    try {
      slot ??= this.spawn();
      await slot.ready;
      const html = await this.renderOn(slot, job.request);
      reusable = true;
      job.resolve(html);
    } catch (err) {
      reusable = err instanceof SandboxRenderError && err.limit === null;
      job.reject(err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.running--;
      if (slot && reusable && !this.closed && slot.child.exitCode === null) this.park(slot);
      else if (slot) slot.child.kill('SIGKILL');
      const next = this.queue.shift();
      if (next) void this.run(next);
    }
  }

  private park(slot: Slot) {
    slot.idleTimer = setTimeout(() => {
      const i = this.idle.indexOf(slot);
      if (i >= 0) {
        this.idle.splice(i, 1);
        slot.child.kill('SIGKILL');
      }
    }, this.limits.idleMs);
    slot.idleTimer.unref();
    this.idle.push(slot);
  }

  private renderOn(slot: Slot, request: RenderRequest): Promise<string> {
    const id = this.nextId++;
    const { child } = slot;
    return new Promise<string>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new SandboxRenderError(`rendering took longer than ${this.limits.timeMs} ms`, 'render_time'));
      }, this.limits.timeMs);
      const onMessage = (m: WorkerMessage) => {
        if (m?.id !== id) return;
        cleanup();
        if (m.error) reject(new SandboxRenderError(m.error.message, m.error.limit));
        else resolve(m.html ?? '');
      };
      // The only way a render process ends mid-render by itself is running out of its heap.
      const onExit = () => {
        cleanup();
        reject(new SandboxRenderError(`rendering needed more than ${this.limits.heapMb} MB of memory`, 'memory'));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ id, request, maxOutputChars: this.limits.outputChars }, (err) => {
        if (!err) return;
        cleanup();
        reject(new SandboxRenderError(`the document cannot be passed to the renderer: ${err.message}`, 'busy'));
      });
    });
  }
}
