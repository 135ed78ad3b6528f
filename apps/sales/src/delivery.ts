import path from 'node:path';
import type { BaseConfig, ServiceDeps } from '@ledgerline/service-kit';
import { Mailer, PdfPrinter, type RenderingConfig } from '@ledgerline/rendering';

/** The printer (one shared Chromium) and the mailer of one running sales service. */
export interface Delivery {
  printer: PdfPrinter;
  mailer: Mailer;
  mailFrom: string;
  close(): Promise<void>;
}

/** Creates the service's printer and mailer at boot; the kit closes them at stop. */
export function createDelivery(deps: ServiceDeps<BaseConfig & RenderingConfig, undefined>): Delivery {
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
    close: async () => {
      mailer.close();
      await printer.close();
    },
  };
}
