import type { Queryable } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import type { MailContent } from './layout.js';

export interface MailToQueue extends MailContent {
  /** Why it is sent (e.g. `invitation:<tokenHash>`): one message per cause and recipient, ever. */
  cause: string;
  to: string;
}

/**
 * Writes the message in the caller's transaction (it exists if and only if its cause commits) and queues its
 * sending. A cause already mailed to that recipient is skipped, so a repeated cause never mails twice.
 */
export async function queueMail(tx: Queryable, queue: Queue, mail: MailToQueue): Promise<void> {
  const [row] = await tx.query<{ id: number }>(
    `INSERT INTO mail_messages (cause, recipient, subject, text_body, html_body)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (cause) DO NOTHING RETURNING id`,
    [`${mail.cause}:${mail.to}`, mail.to, mail.subject, mail.text, mail.html],
  );
  if (row) await queue.send(tx, 'mail.send', { messageId: Number(row.id) });
}
