import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Stable per cause, so a receiving server (or a person) can tell a repeat from a new message. */
  messageId: string;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer when `smtpUrl` is set (`smtps://` for implicit TLS; STARTTLS whenever the server
 * offers it), else every message as an RFC 5322 `.eml` file under `<dataDir>/mail/`, its subject and
 * recipient logged at info (development needs no mail server, and the files open in any mail program).
 */
export function mailTransport(
  settings: { smtpUrl: string | undefined; from: string; dataDir: string },
  log: Logger,
): MailTransport {
  if (settings.smtpUrl) {
    const smtp = nodemailer.createTransport(settings.smtpUrl);
    return {
      async send(mail) {
        await smtp.sendMail({ from: settings.from, ...mail });
      },
      close: () => smtp.close(),
    };
  }
  const files = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const dir = path.join(settings.dataDir, 'mail');
  return {
    async send(mail) {
      const built = await files.sendMail({ from: settings.from, ...mail });
      await mkdir(dir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.messageId.replace(/[^\w.-]/g, '_')}.eml`;
      await writeFile(path.join(dir, name), built.message as Buffer);
      log.info(
        { to: mail.to, subject: mail.subject, file: path.join(dir, name) },
        'e-mail written (no SMTP_URL)',
      );
    },
    close: () => files.close(),
  };
}
