import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import type { Queue } from '../platform/queue.js';
import { postbackHeaders } from '../postbacks/signing.js';
import { decryptSecret } from './crypto.js';
import {
  abandonDeleted,
  type ClaimedAttempt,
  claimAttempts,
  type NextStep,
  recordAttempt,
  targetGroup,
} from './deliveries.data.js';
import type { AttemptResult, NotificationClient } from './http-client.js';
import { signWebhook } from './signing.js';

/** Automatic attempts per delivery (the spec's 3); a manual resend is one more, never retried. */
export const MAX_ATTEMPTS = 3;
/** Extra time beyond the response timeout before an attempt in flight counts as interrupted. */
export const LEASE_MARGIN_MS = 5000;

export interface EngineDeps {
  db: Db;
  queue: Queue;
  config: Config;
  client: NotificationClient;
  log: Logger;
  /** Wakes this process's delivery workers after `delayMs` (a retry falls due before the next poll). */
  wake: (delayMs: number) => void;
}

/** Runs the attempts one pg-boss batch of `notifications.deliver` jobs holds, each recorded as soon as it ends. */
export async function deliverBatch(
  deps: EngineDeps,
  jobs: readonly { deliveryId: number; ticket: string }[],
): Promise<void> {
  const claimed = await claimAttempts(deps.db, jobs, deps.config.webhookTimeoutMs + LEASE_MARGIN_MS);
  await Promise.all(claimed.map((c) => attempt(deps, c)));
}

async function attempt(deps: EngineDeps, c: ClaimedAttempt): Promise<void> {
  if (c.kind === 'webhook' && c.webhookDeleted) {
    await abandonDeleted(deps.db, c.id);
    return;
  }
  const request = build(deps.config, c);
  const result = await deps.client.post(request.url, request.body, request.headers);
  const next = nextStep(deps.config, c, result);
  const record = {
    deliveryId: c.id,
    attempt: c.attempt,
    eventType: c.eventType,
    url: request.url,
    redelivery: c.redelivery,
    statusCode: result.statusCode,
    error: result.error,
    durationMs: result.durationMs,
  };
  if (next.status !== 'PENDING') {
    await recordAttempt(deps.db, record, next);
    return;
  }
  await deps.db.tx(async (tx) => {
    await recordAttempt(tx, record, next);
    await deps.queue.send(
      tx,
      'notifications.deliver',
      { deliveryId: c.id, ticket: next.ticket },
      { startAt: new Date(Date.now() + next.delayMs), group: targetGroup(request.url) },
    );
  });
  deps.wake(next.delayMs);
}

function build(
  config: Config,
  c: ClaimedAttempt,
): { url: string; body: string; headers: Record<string, string> } {
  if (c.kind === 'postback') {
    const body = c.postbackBody ?? '';
    return { url: c.postbackUrl ?? '', body, headers: postbackHeaders(config.postbackSecret, body) };
  }
  const secret = decryptSecret(config.secretsKey, c.secretEnc ?? '');
  const signed = signWebhook(secret, c.eventId, c.eventType, c.webhookBody, c.redelivery);
  return { url: c.webhookUrl ?? '', body: c.webhookBody, headers: signed.headers };
}

export function nextStep(config: Config, c: ClaimedAttempt, result: AttemptResult): NextStep {
  if (result.outcome === 'delivered') return { status: 'DELIVERED' };
  if (result.outcome === 'fail' || c.redelivery || c.attempt >= MAX_ATTEMPTS) return { status: 'FAILED' };
  const delayMs = config.webhookRetryDelaysMs[c.attempt - 1] ?? config.webhookRetryDelaysMs.at(-1) ?? 0;
  return { status: 'PENDING', ticket: randomUUID(), delayMs };
}
