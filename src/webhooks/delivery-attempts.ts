import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { GroupCommit } from '../platform/concurrency/group-commit.js';
import type { Config } from '../platform/config/config.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { type OutboundRequest, postbackRequest } from '../postbacks/index.js';
import { openKeys, type SigningKeys } from './crypto.js';
import {
  type AttemptRecord,
  abandonDeleted,
  type ClaimedAttempt,
  type NextStep,
  recordAttempts,
  skipDisabled,
  targetGroup,
  webhookTarget,
} from './deliveries.data.js';
import type { AttemptResult, NotificationClient } from './http-client.js';
import { signWebhook } from './signing.js';

/**
 * Attempts per delivery (the API contract's 3); a manual resend of a delivery already ended is one more, never
 * retried; one of a delivery still owed a retry takes that retry's place (counted among the 3, the schedule goes on).
 */
export const MAX_ATTEMPTS = 3;
/** Extra time beyond the response timeout before an attempt in flight counts as interrupted. */
export const LEASE_MARGIN_MS = 5000;
/** Webhook secrets kept decrypted in memory per process (the cache starts over when full). */
const SECRET_CACHE_SIZE = 1024;
/** How stale a webhook's target may be for an attempt that waited for its host's slot. */
const TARGET_REFRESH_MS = 1000;

export interface EngineDeps {
  db: Db;
  /** The delivery queue's own connections (QUEUE_SETTINGS). */
  queue: Queryable;
  config: Config;
  client: NotificationClient;
  /** Wakes this process's delivery dispatcher after `delayMs` (a retry falls due). */
  wake: (delayMs: number) => void;
  log: Logger;
}

interface Outcome {
  record: AttemptRecord;
  next: NextStep;
}

/**
 * Makes claimed attempts and records their outcomes. Outcomes that end close together are written by one
 * statement (attempt rows and delivery states; a retry is its new ticket and due time), so the database cost
 * per delivery falls as load rises.
 */
export class DeliveryAttempts {
  private readonly recorder: GroupCommit<Outcome, void>;
  /** Webhook targets read for attempts that waited, by webhook id, reused for TARGET_REFRESH_MS. */
  private readonly targets = new Map<number, { at: number; target: ReturnType<typeof webhookTarget> }>();
  /** Decrypted secrets by their stored ciphertext (a new or rotated secret has a new one, with its own IV). */
  private readonly secrets = new Map<string, SigningKeys>();

  constructor(private readonly deps: EngineDeps) {
    // one write at a time: outcomes ending during a write make the next one (fewer, larger statements
    // delivered more per second than two writes at once: docs/performance.md)
    this.recorder = new GroupCommit(
      async (items) => {
        await this.write(items);
        return items.map(() => undefined);
      },
      { maxBatch: 500, parallel: 1, retryAlone: false },
    );
  }

  /**
   * Makes the attempt; `onSent` runs when the receiver is done with it, before the outcome is recorded, with
   * the attempt's result when a request was made (undefined when nothing was sent). An
   * attempt that `waited` in memory for its host's slot is sent to its webhook as it is now (deleted: nothing
   * is sent; disabled: nothing is sent, SKIPPED; URL or secret changed: the new ones), read at most once a
   * second per webhook.
   */
  async run(
    c: ClaimedAttempt,
    onSent: (result?: AttemptResult) => void = () => undefined,
    waited = false,
  ): Promise<void> {
    const { deps } = this;
    if (waited && c.kind === 'webhook' && c.webhookId !== null) {
      try {
        c = await this.current(c, c.webhookId);
      } catch (err) {
        onSent();
        throw err;
      }
    }
    if (c.kind === 'webhook' && c.webhookDeleted) {
      onSent();
      await abandonDeleted(deps.db, c.id);
      return;
    }
    if (c.kind === 'webhook' && c.webhookDisabled) {
      onSent();
      await skipDisabled(deps.db, c.id, c.attempt);
      return;
    }
    let url = (c.kind === 'webhook' ? c.webhookUrl : c.postbackUrl) ?? '';
    let result: AttemptResult;
    /** The result of a request that was made (none when the attempt could not be prepared). */
    let sent: AttemptResult | undefined;
    try {
      const request = this.build(c);
      url = request.url;
      sent = await deps.client.post(request.url, request.body, request.headers);
      result = sent;
    } catch (err) {
      // nothing was sent (e.g. the secret cannot be decrypted under this process's SECRETS_KEY): the attempt
      // counts and is retried like a network error, and the host's slot is freed below all the same
      // an authentication failure of the seal is the key's: say so, and which webhook, for on-call to act on
      const sealed = err instanceof Error && /unable to authenticate data/i.test(err.message);
      deps.log.error(
        { err, deliveryId: c.id, ...(c.kind === 'webhook' ? { webhookId: c.webhookId } : {}) },
        sealed
          ? "notification attempt could not be prepared: this process's SECRETS_KEY does not open the webhook's stored secret (every process must run with the key the secrets were sealed with)"
          : 'notification attempt could not be prepared',
      );
      result = {
        outcome: 'retry',
        statusCode: null,
        error: 'not sent: the attempt could not be prepared',
        durationMs: 0,
      };
    } finally {
      onSent(sent);
    }
    const next = nextStep(deps.config, c, result);
    if (next.status !== 'DELIVERED') logFailedAttempt(deps.log, c, url, result, next);
    await this.recorder.submit({
      record: {
        deliveryId: c.id,
        attempt: c.attempt,
        eventType: c.eventType,
        url,
        redelivery: c.redelivery,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
      },
      next,
    });
  }

  private build(c: ClaimedAttempt): OutboundRequest {
    const { config } = this.deps;
    if (c.kind === 'postback')
      return postbackRequest(config.postbackSecret, c.postbackUrl ?? '', c.postbackBody ?? '');
    const signed = signWebhook(
      this.secret(c.secretEnc ?? ''),
      c.eventId,
      c.eventType,
      c.webhookBody,
      c.redelivery,
    );
    return { url: c.webhookUrl ?? '', body: c.webhookBody, headers: signed.headers };
  }

  private async current(c: ClaimedAttempt, webhookId: number): Promise<ClaimedAttempt> {
    const now = Date.now();
    let entry = this.targets.get(webhookId);
    if (!entry || now - entry.at > TARGET_REFRESH_MS) {
      entry = { at: now, target: webhookTarget(this.deps.db, webhookId) };
      entry.target.catch(() => this.targets.delete(webhookId));
      if (this.targets.size >= SECRET_CACHE_SIZE) this.targets.clear();
      this.targets.set(webhookId, entry);
    }
    const target = await entry.target;
    if (!target) return { ...c, webhookDeleted: true };
    return {
      ...c,
      webhookUrl: target.url,
      secretEnc: target.secretEnc,
      webhookDeleted: target.deleted,
      webhookDisabled: target.disabled,
    };
  }

  /** AES-GCM decryption once per webhook secret rather than once per attempt (decrypting per attempt showed in the delivery process's CPU profile). */
  private secret(stored: string): SigningKeys {
    let secret = this.secrets.get(stored);
    if (secret === undefined) {
      secret = openKeys(this.deps.config.secretsKey, stored);
      if (this.secrets.size >= SECRET_CACHE_SIZE) this.secrets.clear();
      this.secrets.set(stored, secret);
    }
    return secret;
  }

  private async write(items: Outcome[]): Promise<void> {
    await recordAttempts(this.deps.queue, items);
    // one wake-up per distinct delay, not one timer per retried attempt
    const delays = new Set(items.flatMap(({ next }) => (next.status === 'PENDING' ? [next.delayMs] : [])));
    for (const delayMs of delays) this.deps.wake(delayMs);
  }
}

/**
 * One line per attempt that did not deliver: info while it will be tried again, warn once it has failed for
 * good. The receiver is named by host only: merchants put tokens in their URLs' paths and queries.
 */
function logFailedAttempt(
  log: EngineDeps['log'],
  c: ClaimedAttempt,
  url: string,
  result: AttemptResult,
  next: NextStep,
): void {
  const fields = {
    deliveryId: c.id,
    kind: c.kind,
    webhookId: c.kind === 'webhook' ? c.webhookId : undefined,
    event: c.eventType,
    host: targetGroup(url),
    attempt: c.attempt,
    statusCode: result.statusCode,
    error: result.error,
  };
  if (next.status === 'PENDING')
    log.info({ ...fields, retryInMs: next.delayMs }, 'notification attempt failed; will retry');
  else log.warn(fields, 'notification delivery failed for good');
}

function nextStep(config: Config, c: ClaimedAttempt, result: AttemptResult): NextStep {
  if (result.outcome === 'delivered') return { status: 'DELIVERED' };
  // a delivery once interrupted by a dying worker has one attempt more (sweeper.ts)
  const allowed = MAX_ATTEMPTS + (c.interrupted ? 1 : 0);
  // a resend is one attempt more, never retried, unless it took the place of a retry still owed: then the
  // schedule goes on, the resend counted among the attempts
  const retried = !c.redelivery || c.resentInSchedule;
  if (result.outcome === 'fail' || !retried || c.attempt >= allowed) return { status: 'FAILED' };
  const delayMs = config.webhookRetryDelaysMs[c.attempt - 1] ?? config.webhookRetryDelaysMs.at(-1) ?? 0;
  return { status: 'PENDING', ticket: randomUUID(), delayMs };
}
