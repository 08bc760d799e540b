import type { Logger } from 'pino';
import { PixApiClient } from '../payment-standards/index.js';
import type { Config } from '../platform/config/config.js';
import type { Db } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import { BcbProcessor, webhookUrl } from './adapter.js';

/** Webhook registrations that fail are retried after 1 s, doubling up to 5 min, until they succeed. */
export const REGISTRATION_RETRY = { firstMs: 1000, maxMs: 300_000 };

/**
 * With PIX_PROCESSOR=bcb: the client and adapter, and the webhooks registered at the PSP: received Pix
 * (PUT /webhook/{chave}), and, when Pix Automático is set up (PIX_AUTOMATICO_ACCOUNT or PIX_AUTOMATICO_CONTA),
 * its mandates (PUT /webhookrec) and recurring charges (PUT /webhookcobr): a PSP without Pix Automático, or an
 * application without its scopes, is not asked for them.
 * Each is tried once at start; one that fails (PSP unreachable, refusing, not offering Pix Automático) is
 * retried in the background with backoff, every failure logged at warn: without the webhook no Pix is credited
 * until the charge's expiry reads it back. `stop` ends the retries (before the client closes).
 */
export async function startBcb(
  config: Config,
  db: Db,
  queue: Queue,
  log: Logger,
): Promise<{ client: PixApiClient; processor: BcbProcessor; stop: () => void } | null> {
  if (!config.bcb) return null;
  const client = new PixApiClient(config.bcb);
  const processor = new BcbProcessor(client, config.bcb, db, queue);
  const url = webhookUrl(config.bcb);
  const registrations = [
    keepTrying(log, { webhookUrl: url, kind: 'webhook' }, () => processor.registerWebhook()),
    ...(config.bcb.recurrenceAccountId !== null || config.bcb.recurringAccount !== null
      ? (['webhookrec', 'webhookcobr'] as const).map((kind) =>
          keepTrying(log, { webhookUrl: url, kind }, () => processor.registerRecurringWebhook(kind)),
        )
      : []),
  ];
  const stops = await Promise.all(registrations);
  const stop = () => {
    for (const s of stops) s();
  };
  return { client, processor, stop };
}

/** Runs `register` now and, until it succeeds, again after each backoff delay. Returns the stop function. */
async function keepTrying(
  log: Logger,
  what: { webhookUrl: string; kind: string },
  register: () => Promise<void>,
): Promise<() => void> {
  let delay = REGISTRATION_RETRY.firstMs;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let attempt = 0;
  const run = async (): Promise<void> => {
    attempt++;
    try {
      await register();
      log.info({ ...what, attempt }, 'PSP webhook registered');
    } catch (err) {
      if (stopped) return;
      // the reason is the PSP's status or the network error's name: no token or credential reaches the log
      const reason = (err as Error).message;
      log.warn({ ...what, attempt, err: reason, retryInMs: delay }, 'PSP webhook registration failed');
      timer = setTimeout(() => void run(), delay);
      timer.unref();
      delay = Math.min(delay * 2, REGISTRATION_RETRY.maxMs);
    }
  };
  await run();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
