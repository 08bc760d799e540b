import { seal, sealingPublicKey, sealTo } from '../platform/crypto/sealed.js';
import type { Queryable } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import type { MailContent } from './layout.js';

export interface MailToQueue extends MailContent {
  /** Why it is sent (e.g. `invitation:<tokenHash>`): one message per cause and recipient, ever. */
  cause: string;
  to: string;
}

/**
 * Where messages go: the job queue that sends them, and what seals their bodies at rest: SECRETS_KEY, or, in
 * a process without it (an operator command), the gateway's published public key (`publishedSealingKey`).
 */
export type MailOutbox = { queue: Queue } & ({ key: Buffer } | { publicKey: string });

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
      sealBody(outbox, mail.text),
      sealBody(outbox, mail.html),
    ],
  );
  if (row) await outbox.queue.send(tx, 'mail.send', { messageId: Number(row.id) });
}

function sealBody(outbox: MailOutbox, text: string): string {
  return 'key' in outbox ? seal(outbox.key, text) : sealTo(outbox.publicKey, text);
}

/**
 * Publishes the public key SECRETS_KEY seals to (every process that holds it, at start): an operator command
 * seals the e-mails it queues to it. The processes of one gateway share one SECRETS_KEY (the start-up check),
 * so they publish the same key.
 */
export async function publishSealingKey(q: Queryable, key: Buffer): Promise<void> {
  await q.query(
    `INSERT INTO mail_sealing_key (public_key) VALUES ($1)
     ON CONFLICT (one) DO UPDATE SET public_key = EXCLUDED.public_key, published_at = now()
      WHERE mail_sealing_key.public_key IS DISTINCT FROM EXCLUDED.public_key`,
    [sealingPublicKey(key)],
  );
}

/** The gateway's published sealing key; null before any gateway process has started on this database. */
export async function publishedSealingKey(q: Queryable): Promise<string | null> {
  const [row] = await q.query<{ public_key: string }>('SELECT public_key FROM mail_sealing_key');
  return row?.public_key ?? null;
}
