import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
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
  const smtpUrl = settings.smtpUrl;
  if (smtpUrl) {
    const smtp = lazyTransport((nodemailer) => nodemailer.createTransport(smtpUrl));
    return {
      async send(mail) {
        await (await smtp.get()).sendMail({ from: settings.from, ...mail });
      },
      close: () => smtp.close(),
    };
  }
  const files = lazyTransport((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  const dir = path.join(settings.dataDir, 'mail');
  return {
    async send(mail) {
      const built = await (await files.get()).sendMail({ from: settings.from, ...mail });
      // the messages carry links of one use (invitations, password resets): readable by the gateway's user
      // alone, as every other secret in DATA_DIR is
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.messageId.replace(/[^\w.-]/g, '_')}.eml`;
      await writeFile(path.join(dir, name), built.message as Buffer, { mode: 0o600 });
      log.info(
        { to: mail.to, subject: mail.subject, file: path.join(dir, name) },
        'e-mail written (no SMTP_URL)',
      );
    },
    close: () => files.close(),
  };
}

type Nodemailer = typeof import('nodemailer')['default'];

/**
 * A nodemailer transport made when the first message is sent: the library is loaded then, so a process that
 * sends no mail (the API process beside a worker, or a quiet one) does not carry it.
 */
function lazyTransport(make: (nodemailer: Nodemailer) => Transporter): {
  get(): Promise<Transporter>;
  close(): void;
} {
  let made: Promise<Transporter> | undefined;
  let closed = false;
  return {
    get() {
      made ??= import('nodemailer').then((m) => make(m.default));
      return made;
    },
    close() {
      if (closed) return;
      closed = true;
      void made?.then((t) => t.close());
    },
  };
}
