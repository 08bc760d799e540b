import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitUntil } from './wait.js';

export interface Received {
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

/**
 * A real SMTP server on a free local port that keeps what it receives. `stop()` and `start()` take it down and
 * bring it back on the same port (a mail server outage).
 */
export class Mailbox {
  readonly messages: Received[] = [];
  private server: SMTPServer | null = null;
  port = 0;

  static async start(): Promise<Mailbox> {
    const box = new Mailbox();
    await box.start();
    return box;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        simpleParser(stream)
          .then((mail: ParsedMail) => {
            const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
            this.messages.push({
              to: to?.value[0]?.address ?? '',
              subject: mail.subject ?? '',
              text: mail.text ?? '',
              html: typeof mail.html === 'string' ? mail.html : '',
              messageId: mail.messageId ?? '',
            });
            callback();
          })
          .catch(callback);
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  to(address: string): Received[] {
    return this.messages.filter((m) => m.to === address);
  }

  /** The first message to `address` whose subject matches, once it arrives. */
  waitFor(address: string, subject: RegExp, timeoutMs = 30000): Promise<Received> {
    return waitUntil(
      () => this.to(address).find((m) => subject.test(m.subject)),
      timeoutMs,
      () =>
        `an e-mail to ${address} matching ${subject} (got: ${this.messages.map((m) => `${m.to}: ${m.subject}`).join('; ') || 'none'})`,
    );
  }
}

/** The token of a panel link (`#/convite/<token>` or `#/nova-senha/<token>`) in a message's text. */
export function linkToken(mail: Received, page: 'convite' | 'nova-senha'): string {
  const match = mail.text.match(new RegExp(`#/${page}/([A-Za-z0-9_-]+)`));
  if (!match) throw new Error(`no #/${page}/ link in: ${mail.text}`);
  return match[1]!;
}
