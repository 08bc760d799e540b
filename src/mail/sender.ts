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

/** What every e-mail's subject starts with while the sandbox is on (decisions.md, Sandbox). */
export const TEST_SUBJECT_PREFIX = '[Teste] ';

/** A subject as it is sent: marked "[Teste]" in test mode (once, whatever the message's own text). */
export function sentSubject(subject: string, testMode: boolean): string {
  return testMode && !subject.startsWith(TEST_SUBJECT_PREFIX.trim())
    ? TEST_SUBJECT_PREFIX + subject
    : subject;
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
  /** SANDBOX on: the subject starts with "[Teste]" (every e-mail goes out here, so it is marked here once). */
  testMode = false,
) {
  try {
    await db.tx(async (tx) => {
      const [m] = await tx.query<MessageRow>('SELECT * FROM mail_messages WHERE id = $1 FOR UPDATE', [
        messageId,
      ]);
      if (!m || m.sent_at) return;
      await transport.send({
        to: m.recipient,
        subject: sentSubject(m.subject, testMode),
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
