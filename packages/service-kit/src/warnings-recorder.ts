import type { Logger } from './logger.js';

/** A logger that keeps its warnings in memory and drops the rest: what a test of a module's log lines reads. */
export function warningsRecorder(): { log: Logger; lines: Array<{ msg: string; fields: Record<string, unknown> }> } {
  const lines: Array<{ msg: string; fields: Record<string, unknown> }> = [];
  const log: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (msg, fields = {}) => lines.push({ msg, fields }),
    error: () => undefined,
    child: () => log,
  };
  return { log, lines };
}
