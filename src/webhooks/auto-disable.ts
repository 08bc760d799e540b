import type { Logger } from 'pino';
import { recordAudit, SYSTEM_ACTOR } from '../audit/audit.data.js';
import type { Config } from '../platform/config/config.js';
import type { Db } from '../platform/db/db.js';
import { startPeriodic } from '../platform/jobs/periodic.js';
import { disableWebhook, failingWebhooks } from './operations.data.js';

/**
 * Disables webhooks that keep failing (WEBHOOK_DISABLE_AFTER_FAILURES / _HOURS): their deliveries are logged
 * SKIPPED until the merchant re-enables them, and recover can send those later. Safe on several workers at
 * once: only the process whose update finds the webhook still active records it.
 */
export async function disableFailingWebhooks(db: Db, config: Config, log: Logger): Promise<number> {
  const failing = await failingWebhooks(
    db,
    config.webhookDisableAfterFailures,
    config.webhookDisableAfterHours,
  );
  let disabled = 0;
  for (const hook of failing) {
    const reason =
      `Disabled automatically: the last ${config.webhookDisableAfterFailures} deliveries failed over at least ` +
      `${config.webhookDisableAfterHours} h (last error: ${hook.lastError ?? 'unknown'})`;
    await db.tx(async (tx) => {
      const accountId = await disableWebhook(tx, Number(hook.id), reason);
      if (accountId === null) return;
      await recordAudit(tx, accountId, SYSTEM_ACTOR, {
        action: 'webhook.disabled',
        target: `webhook:${hook.id}`,
      });
      disabled++;
      log.warn({ webhookId: Number(hook.id), accountId }, 'webhook disabled after repeated failures');
    });
  }
  return disabled;
}

export function startAutoDisable(db: Db, config: Config, log: Logger): () => void {
  return startPeriodic(
    config.webhookHealthCheckMs,
    () => disableFailingWebhooks(db, config, log),
    (err) => log.error({ err }, 'webhook health check failed'),
  );
}
