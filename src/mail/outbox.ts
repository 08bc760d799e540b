import { seal } from '../platform/crypto/sealed.js';
import type { Queryable } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import type { MailContent } from './layout.js';

export interface MailToQueue extends MailContent {
  /** Why it is sent (e.g. `invitation:<tokenHash>`): one message per cause and recipient, ever. */
  cause: string;
  to: string;
}

/** Where messages go: the job queue that sends them, and SECRETS_KEY, which seals their bodies at rest. */
export interface MailOutbox {
  queue: Queue;
  key: Buffer;
}

/**
 * Writes the message in the caller's transaction (it exists if and only if its cause commits) and queues its
 * sending. A cause already mailed to that recipient is skipped, so a repeated cause never mails twice. The
 * bodies are sealed: an invitation's or a reset's link is a credential until it is spent.
 */
export async function queueMail(tx: Queryable, outbox: MailOutbox, mail: MailToQueue): Promise<void> {
  const [row] = await tx.query<{ id: number }>(
    `INSERT INTO mail_messages (cause, recipient, subject, text_body, html_body)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (cause) DO NOTHING RETURNING id`,
    [
      `${mail.cause}:${mail.to}`,
      mail.to,
      mail.subject,
      seal(outbox.key, mail.text),
      seal(outbox.key, mail.html),
    ],
  );
  if (row) await outbox.queue.send(tx, 'mail.send', { messageId: Number(row.id) });
}
