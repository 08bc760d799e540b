import type { Logger } from 'pino';
import type { Config } from '../../../platform/config.js';
import type { Db } from '../../../platform/db.js';
import { PixApiClient } from '../../../platform/pix-api-client.js';
import { BcbProcessor, webhookUrl } from './adapter.js';

/**
 * With PIX_PROCESSOR=bcb: the client and adapter, and the webhook for received Pix registered at the PSP
 * (PUT /webhook/{chave}). A PSP unreachable at start is logged, not fatal: charges then fail with 502 until it
 * answers, and the next start registers the webhook again.
 */
export async function startBcb(
  config: Config,
  db: Db,
  log: Logger,
): Promise<{ client: PixApiClient; processor: BcbProcessor } | null> {
  if (!config.bcb) return null;
  const client = new PixApiClient(config.bcb);
  const processor = new BcbProcessor(client, config.bcb, db);
  try {
    await processor.registerWebhook();
    log.info({ webhookUrl: webhookUrl(config.bcb) }, 'PSP webhook registered');
  } catch (err) {
    log.error({ err: (err as Error).message }, 'PSP webhook registration failed');
  }
  return { client, processor };
}
