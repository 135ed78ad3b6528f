import path from 'node:path';
import type { BaseConfig, ServiceDeps } from '@ledgerline/service-kit';
import { Mailer, PdfPrinter, type RenderingConfig } from '@ledgerline/rendering';
import { attachmentStoreOf, type AttachmentStoreConfig, type S3Store } from '@ledgerline/posted-documents';

/** The printer (one shared Chromium), the mailer and the attachment store of one running sales service. */
export interface Delivery {
  printer: PdfPrinter;
  mailer: Mailer;
  mailFrom: string;
  /** The object store invoices' files go to (S3), or null (the database). */
  attachmentStore: S3Store | null;
  /** What the kept files one e-mail attaches may weigh together. */
  maxAttachedBytes: number;
  close(): Promise<void>;
}

/** Creates the service's printer and mailer at boot; the kit closes them at stop. */
export function createDelivery(deps: ServiceDeps<BaseConfig & RenderingConfig & AttachmentStoreConfig, undefined>): Delivery {
  const { config } = deps;
  const printer = new PdfPrinter({
    executablePath: config.CHROMIUM_PATH,
    fallback: config.CHROMIUM_FALLBACK,
    concurrency: config.PDF_CONCURRENCY,
    timeoutMs: config.PDF_TIMEOUT_MS,
    log: deps.log,
  });
  const mailer = new Mailer({ smtpUrl: config.SMTP_URL, mailDir: path.resolve(config.DATA_DIR, 'mail'), timeoutMs: config.SMTP_TIMEOUT_MS });
  return {
    printer,
    mailer,
    mailFrom: config.MAIL_FROM,
    attachmentStore: attachmentStoreOf(config),
    maxAttachedBytes: config.MAIL_ATTACHMENTS_MAX_BYTES,
    close: async () => {
      mailer.close();
      await printer.close();
    },
  };
}
