import { z } from 'zod';

/** Settings every process reads. A service extends this schema with its own keys. */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Prefix of every database name this deployment creates (tests use a unique one per run). */
  DATABASE_PREFIX: z.string().regex(/^[a-z0-9_]*$/, 'lower-case letters, digits and _ only').default('ledgerline_'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9_-]+\.)*$/, 'empty, or tokens each followed by a dot, e.g. "test42."')
    .default(''),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  /** Shared secret the gateway sends to services; when set, services refuse calls without it. */
  INTERNAL_TOKEN: z.string().min(16).optional(),
  OUTBOX_POLL_MS: z.coerce.number().int().positive().default(250),
  CONSUMER_MAX_DELIVER: z.coerce.number().int().min(1).default(8),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

export class ConfigError extends Error {}

/**
 * Reads the environment once through a zod schema. A wrong value throws a ConfigError listing
 * every bad key; `runService` turns that into a clear message and exit code 1.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  if (env.NATS_SUBJECT_PREFIX === '') cleaned.NATS_SUBJECT_PREFIX = '';
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
