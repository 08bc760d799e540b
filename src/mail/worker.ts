import type { Platform } from '../platform/context.js';
import { mailTransport } from '../platform/mail/transport.js';
import { sendQueuedMail } from './sender.js';

/** Worker of job 'mail.send' (queued with the message, in its cause's transaction). */
export async function startMailWorker(platform: Platform): Promise<() => Promise<void>> {
  const { config, db, queue, log } = platform;
  const transport = mailTransport(
    { smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir },
    log,
  );
  const host = new URL(config.publicUrl).hostname || 'localhost';
  await queue.work('mail.send', { batchSize: 1, localConcurrency: 2 }, async (jobs) => {
    for (const job of jobs) {
      try {
        await sendQueuedMail(db, transport, config.secretsKey, job.data.messageId, host, config.sandbox);
      } catch (err) {
        log.warn({ err, messageId: job.data.messageId }, 'e-mail not sent; will retry');
        throw err;
      }
    }
  });
  return async () => transport.close();
}
