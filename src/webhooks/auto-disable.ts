import type { Logger } from 'pino';
import { recordAudit, SYSTEM_ACTOR } from '../audit/index.js';
import { activeUsersWithRole, rolesWith } from '../auth/index.js';
import { type MailOutbox, queueMail, renderMail } from '../mail/index.js';
import type { Config } from '../platform/config/config.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { startPeriodic } from '../platform/jobs/periodic.js';
import type { Queue } from '../platform/jobs/queue.js';
import { greeting } from '../platform/text/names.js';
import { disableWebhook, failingWebhooks } from './operations.data.js';

/**
 * Disables webhooks that keep failing (WEBHOOK_DISABLE_AFTER_FAILURES / _HOURS): their deliveries are logged
 * SKIPPED until the merchant re-enables them, and recover can send those later. Safe on several workers at
 * once: only the process whose update finds the webhook still active records it.
 */
export async function disableFailingWebhooks(
  db: Db,
  queue: Queue,
  config: Config,
  log: Logger,
): Promise<number> {
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
      const disabledHook = await disableWebhook(tx, Number(hook.id), reason);
      if (disabledHook === null) return;
      const { accountId } = disabledHook;
      await recordAudit(tx, accountId, SYSTEM_ACTOR, {
        action: 'webhook.disabled',
        target: `webhook:${hook.id}`,
      });
      await mailDisabled(tx, { queue, key: config.secretsKey }, config.publicUrl, accountId, {
        id: Number(hook.id),
        url: disabledHook.url,
        lastError: hook.lastError,
      });
      disabled++;
      log.warn({ webhookId: Number(hook.id), accountId }, 'webhook disabled after repeated failures');
    });
  }
  return disabled;
}

/** "Webhook desativado" to the users who manage webhooks (owners, admins, developers). */
async function mailDisabled(
  tx: Queryable,
  outbox: MailOutbox,
  publicUrl: string,
  accountId: number,
  hook: { id: number; url: string; lastError: string | null },
): Promise<void> {
  const [at] = await tx.query<{ now: Date }>('SELECT now()');
  for (const user of await activeUsersWithRole(tx, accountId, rolesWith('integrations'))) {
    await queueMail(tx, outbox, {
      cause: `webhook_disabled:${hook.id}:${at!.now.toISOString()}`,
      to: user.email,
      ...renderMail({
        subject: 'Webhook desativado por falhas repetidas',
        paragraphs: [
          greeting(user.name),
          `O webhook ${hook.url} foi desativado automaticamente: as últimas entregas falharam seguidamente${hook.lastError ? ` (último erro: ${hook.lastError})` : ''}.`,
          'Enquanto ele estiver desativado, as notificações ficam registradas como não enviadas. Corrija o endereço e reative o webhook no painel; depois, use "Recuperar" para reenviar as notificações do período.',
        ],
        action: { label: 'Abrir webhooks no painel', url: `${publicUrl}/#/webhooks` },
      }),
    });
  }
}

export function startAutoDisable(db: Db, queue: Queue, config: Config, log: Logger): () => void {
  return startPeriodic(
    config.webhookHealthCheckMs,
    () => disableFailingWebhooks(db, queue, config, log),
    (err) => log.error({ err }, 'webhook health check failed'),
  );
}
