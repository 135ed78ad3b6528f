import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType?: string;
}

export interface MailMessage {
  from: string;
  replyTo?: string | null;
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  text: string;
  attachments?: MailAttachment[];
}

export type MailOutcome =
  | { status: 'sent'; messageId: string | null; response: string | null }
  | { status: 'written'; messageId: string | null; file: string }
  | { status: 'failed'; error: string };

export interface MailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`; without it messages are written as .eml files. */
  smtpUrl?: string;
  /** Folder of the .eml files written when there is no SMTP server. */
  mailDir: string;
  /** Connection, greeting and socket timeout of the SMTP conversation. */
  timeoutMs?: number;
}

/** SMTP errors carry the server's reply; keep it short and free of credentials. */
function describe(e: unknown): string {
  const err = e as { message?: string; code?: string; responseCode?: number; response?: string };
  const parts = [err.code, err.responseCode ? String(err.responseCode) : undefined, err.response ?? err.message].filter(Boolean);
  return parts.join(' ').replace(/\/\/[^@\s]*@/g, '//***@').slice(0, 1000) || 'unknown error';
}

/**
 * Sends e-mail over SMTP with nodemailer (architecture §7), or, without `SMTP_URL`, writes each message
 * as an RFC 5322 `.eml` file into the data folder so nothing needs a mail server to run. A
 * failure is an outcome, never an exception: the caller records every attempt.
 */
export class Mailer {
  private readonly smtp: Transporter | null;
  private readonly files: Transporter;

  constructor(private readonly opts: MailerOptions) {
    const timeout = opts.timeoutMs ?? 15_000;
    this.smtp = opts.smtpUrl
      ? nodemailer.createTransport(opts.smtpUrl, {
          connectionTimeout: timeout,
          greetingTimeout: timeout,
          socketTimeout: timeout,
        } as never)
      : null;
    this.files = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  }

  get mode(): 'smtp' | 'file' {
    return this.smtp ? 'smtp' : 'file';
  }

  async send(msg: MailMessage): Promise<MailOutcome> {
    const mail = {
      from: msg.from,
      replyTo: msg.replyTo ?? undefined,
      to: msg.to,
      cc: msg.cc?.length ? msg.cc : undefined,
      bcc: msg.bcc?.length ? msg.bcc : undefined,
      subject: msg.subject,
      text: msg.text,
      attachments: msg.attachments?.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
    };
    if (this.smtp) {
      try {
        const info = await this.smtp.sendMail(mail);
        return { status: 'sent', messageId: info.messageId ?? null, response: typeof info.response === 'string' ? info.response : null };
      } catch (e) {
        return { status: 'failed', error: describe(e) };
      }
    }
    try {
      // Bcc stays in the file (keepBcc): it is the record of whom the message was for.
      const info = await this.files.sendMail({ ...mail, keepBcc: true } as never);
      await mkdir(this.opts.mailDir, { recursive: true });
      const file = path.join(this.opts.mailDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
      await writeFile(file, info.message as Buffer);
      return { status: 'written', messageId: info.messageId ?? null, file };
    } catch (e) {
      return { status: 'failed', error: describe(e) };
    }
  }

  close(): void {
    this.smtp?.close();
  }
}

const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/**
 * Splits a recipient field (`a@x.cz, "Name" <b@y.cz>; c@z.cz`) into addresses. Returns the
 * entries that are not valid addresses in `invalid`. Display names are kept as given.
 */
export function parseAddressList(value: string | null | undefined): { addresses: string[]; invalid: string[] } {
  const addresses: string[] = [];
  const invalid: string[] = [];
  if (!value) return { addresses, invalid };
  // Split on , or ; outside double quotes.
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of value) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && (ch === ',' || ch === ';')) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  for (const raw of parts.map((p) => p.trim()).filter(Boolean)) {
    const m = /^(.*)<([^<>]+)>$/.exec(raw);
    const addr = (m ? m[2] : raw).trim();
    if (ADDRESS.test(addr) && addr.length <= 254 && !/[\r\n]/.test(raw)) addresses.push(raw);
    else invalid.push(raw);
  }
  return { addresses, invalid };
}
