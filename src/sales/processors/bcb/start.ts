import type { Logger } from 'pino';
import type { Config } from '../../../platform/config.js';
import type { Db } from '../../../platform/db.js';
import { PixApiClient } from '../../../platform/pix-api-client.js';
import type { Queue } from '../../../platform/queue.js';
import { BcbProcessor, webhookUrl } from './adapter.js';

/**
 * With PIX_PROCESSOR=bcb: the client and adapter, and the webhooks registered at the PSP: received Pix
 * (PUT /webhook/{chave}), Pix Automático mandates (PUT /webhookrec) and recurring charges (PUT /webhookcobr).
 * A PSP unreachable at start (or one that does not offer Pix Automático) is logged, not fatal: charges then
 * fail with 502 until it answers, and the next start registers the webhooks again.
 */
export async function startBcb(
  config: Config,
  db: Db,
  queue: Queue,
  log: Logger,
): Promise<{ client: PixApiClient; processor: BcbProcessor } | null> {
  if (!config.bcb) return null;
  const client = new PixApiClient(config.bcb);
  const processor = new BcbProcessor(client, config.bcb, db, queue);
  try {
    await processor.registerWebhook();
    log.info({ webhookUrl: webhookUrl(config.bcb) }, 'PSP webhook registered');
  } catch (err) {
    log.error({ err: (err as Error).message }, 'PSP webhook registration failed');
  }
  for (const kind of ['webhookrec', 'webhookcobr'] as const) {
    try {
      await processor.registerRecurringWebhook(kind);
      log.info({ webhookUrl: webhookUrl(config.bcb), kind }, 'PSP Pix Automático webhook registered');
    } catch (err) {
      log.error({ err: (err as Error).message, kind }, 'PSP Pix Automático webhook registration failed');
    }
  }
  return { client, processor };
}
