import path from 'node:path';
import type { ServiceDeps } from '@ledgerline/service-kit';
import { Mailer, PdfPrinter, type RenderingConfig } from '@ledgerline/rendering';

/** The printer (one shared Chromium) and the mailer of one running sales service. */
export interface Delivery {
  printer: PdfPrinter;
  mailer: Mailer;
  mailFrom: string;
}

const byService = new WeakMap<object, Delivery>();

/** Creates the service's printer and mailer at start; the returned hook closes them on stop. */
export async function startDelivery(deps: ServiceDeps): Promise<() => Promise<void>> {
  const config = deps.config as ServiceDeps['config'] & RenderingConfig;
  const delivery: Delivery = {
    printer: new PdfPrinter({
      executablePath: config.CHROMIUM_PATH,
      concurrency: config.PDF_CONCURRENCY,
      timeoutMs: config.PDF_TIMEOUT_MS,
      log: deps.log,
    }),
    mailer: new Mailer({ smtpUrl: config.SMTP_URL, mailDir: path.resolve(config.DATA_DIR, 'mail'), timeoutMs: config.SMTP_TIMEOUT_MS }),
    mailFrom: config.MAIL_FROM,
  };
  byService.set(deps, delivery);
  return async () => {
    byService.delete(deps);
    delivery.mailer.close();
    await delivery.printer.close();
  };
}

export function deliveryOf(deps: ServiceDeps): Delivery {
  const d = byService.get(deps);
  if (!d) throw new Error('sales delivery (printer, mailer) used before the service started');
  return d;
}
