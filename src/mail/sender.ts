import { unseal } from '../platform/crypto/sealed.js';
import type { Db } from '../platform/db/db.js';
import type { MailTransport } from '../platform/mail/transport.js';

interface MessageRow {
  id: number;
  cause: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  sent_at: Date | null;
}

/**
 * Sends one queued message unless it went out already. Its row stays locked while the SMTP server answers, so
 * two workers holding the same job (a retry racing an expired run) cannot both send it. A failure is recorded
 * on the row and thrown, and the job queue tries again later.
 */
export async function sendQueuedMail(
  db: Db,
  transport: MailTransport,
  key: Buffer,
  messageId: number,
  host: string,
) {
  try {
    await db.tx(async (tx) => {
      const [m] = await tx.query<MessageRow>('SELECT * FROM mail_messages WHERE id = $1 FOR UPDATE', [
        messageId,
      ]);
      if (!m || m.sent_at) return;
      await transport.send({
        to: m.recipient,
        subject: m.subject,
        text: unseal(key, m.text_body),
        html: unseal(key, m.html_body),
        messageId: `<mail-${m.id}@${host}>`,
      });
      await tx.query('UPDATE mail_messages SET sent_at = now(), attempts = attempts + 1 WHERE id = $1', [
        m.id,
      ]);
    });
  } catch (err) {
    await db.query('UPDATE mail_messages SET attempts = attempts + 1, last_error = $2 WHERE id = $1', [
      messageId,
      String((err as Error).message ?? err).slice(0, 500),
    ]);
    throw err;
  }
}
