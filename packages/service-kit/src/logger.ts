/**
 * Structured JSON logs on stdout. Keys that could carry a secret are redacted before writing,
 * so no code path can log an API key, client secret or integration key by accident.
 */
const SECRET_KEY = /(authorization|secret|password|api_key|apikey|token|signature|^key$|cookie|config_encrypted)/i;
type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Call its functions as methods (`log.info(…)`): they are not bound to the logger. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

/**
 * A logger writes one JSON line per call. The gateway writes an access line for every request
 * (`ACCESS_LOG_SAMPLE`), so a line costs one object and one serialisation: the fields a logger
 * was made with are redacted once, not again in every line, and not before its first line (every
 * request makes a child logger; most never write with it).
 */
class JsonLogger implements Logger {
  constructor(
    private readonly service: string,
    private readonly min: number,
    /** already redacted */
    private base: Record<string, unknown>,
    /** fields given to `child`, not yet redacted into `base` */
    private pending?: Record<string, unknown>,
  ) {}

  // methods, not closures made for every logger: a request's child logger is one small object
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.write('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.write('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.write('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.write('error', msg, fields);
  }
  child(fields: Record<string, unknown>): Logger {
    return new JsonLogger(this.service, this.min, this.fields(), fields);
  }

  private fields(): Record<string, unknown> {
    if (this.pending) {
      this.base = { ...this.base, ...(redact(this.pending) as Record<string, unknown>) };
      this.pending = undefined;
    }
    return this.base;
  }

  private write(lvl: Level, msg: string, fields: Record<string, unknown> | undefined): void {
    if (ORDER[lvl] < this.min) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level: lvl, service: this.service, msg, ...this.fields(), ...(fields && (redact(fields) as object)) });
    (lvl === 'error' || lvl === 'warn' ? process.stderr : process.stdout).write(line + '\n');
  }
}

export function createLogger(service: string, level: Level = 'info', base: Record<string, unknown> = {}): Logger {
  return new JsonLogger(service, ORDER[level], redact(base) as Record<string, unknown>);
}
