import { z } from 'zod';

/**
 * Configuration of a service that renders and delivers documents; merged into the service's
 * config schema (`configSchema: z.object({ ...renderingConfigShape })`).
 */
export const renderingConfigShape = {
  /** SMTP server of outgoing mail, e.g. `smtp://user:pass@mail.example.com:587`; unset → .eml files. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/.+/, 'an smtp:// or smtps:// URL')
    .optional(),
  /** Sender when neither the request nor the organisation profile names one. */
  MAIL_FROM: z.string().min(3).default('invoices@ledgerline.invalid'),
  /** What the kept files one e-mail attaches may weigh together (20 MiB: most mail servers refuse larger messages). */
  MAIL_ATTACHMENTS_MAX_BYTES: z.coerce.number().int().positive().max(1024 * 1024 * 1024).default(20 * 1024 * 1024),
  /** Data folder; .eml files go to `<DATA_DIR>/mail` when there is no SMTP server. */
  DATA_DIR: z.string().min(1).default('./data'),
  /** Debian's chromium package installs it at /usr/bin/chromium. */
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /**
   * When no browser is at CHROMIUM_PATH: `bundled` prints with the Chromium that the
   * @sparticuz/chromium package carries inside itself (unpacked to the temp folder on the first
   * print), `none` answers 503 for PDFs.
   */
  CHROMIUM_FALLBACK: z.enum(['bundled', 'none']).default('bundled'),
  /** PDFs printed at the same time by the one shared browser. */
  PDF_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** Kept below the gateway's UPSTREAM_TIMEOUT_MS (15 s) so the client gets this service's answer. */
  PDF_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(10_000),
  /** Connection, greeting and socket timeout of the SMTP conversation. */
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(10_000),
};
export const renderingConfigSchema = z.object(renderingConfigShape);
export type RenderingConfig = z.infer<typeof renderingConfigSchema>;
