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
 * a process without it (an operator command), the gateway's published public key (`publishedMailGateway`).
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

/** What the running gateway publishes for the e-mail a process without SECRETS_KEY queues. */
export interface MailGateway {
  /** The public key SECRETS_KEY seals to (`sealTo`). */
  publicKey: string;
  /** The gateway's PUBLIC_URL: where the e-mail's links point. */
  publicUrl: string;
}

/**
 * Publishes what an operator command needs to queue an e-mail the workers send (every process holding
 * SECRETS_KEY, at start): the public key SECRETS_KEY seals to, and PUBLIC_URL. The processes of one gateway share
 * one SECRETS_KEY (the start-up check) and one PUBLIC_URL, so they publish the same.
 */
export async function publishMailGateway(
  q: Queryable,
  key: Buffer,
  publicUrl: string,
  /**
   * Whether `publicUrl` says where the gateway is: given as PUBLIC_URL, or the default address of a process that
   * serves the API. A worker process without PUBLIC_URL only fills it in when nothing is published yet: its
   * default names its own port, which serves no panel, and would replace the address an API process published.
   */
  urlKnown: boolean,
): Promise<void> {
  await q.query(
    `INSERT INTO mail_gateway (public_key, public_url) VALUES ($1, $2)
     ON CONFLICT (one) DO UPDATE SET public_key = EXCLUDED.public_key,
                                     public_url = CASE WHEN $3 THEN EXCLUDED.public_url ELSE mail_gateway.public_url END,
                                     published_at = now()
      WHERE mail_gateway.public_key IS DISTINCT FROM EXCLUDED.public_key
         OR ($3 AND mail_gateway.public_url IS DISTINCT FROM EXCLUDED.public_url)`,
    [sealingPublicKey(key), publicUrl, urlKnown],
  );
}

/** What the gateway published; null before any gateway process has started on this database. */
export async function publishedMailGateway(q: Queryable): Promise<MailGateway | null> {
  const [row] = await q.query<{ public_key: string; public_url: string }>(
    'SELECT public_key, public_url FROM mail_gateway',
  );
  return row ? { publicKey: row.public_key, publicUrl: row.public_url } : null;
}
