import { type Actor, recordAudit } from '../audit/index.js';
import { KeyedLimit } from '../platform/concurrency/keyed-limit.js';
import type { Config } from '../platform/config/config.js';
import { isForeignKeyViolation } from '../platform/db/advisory-lock.js';
import type { Db } from '../platform/db/db.js';
import { AppError, notFound, validation } from '../platform/errors/app-error.js';
import { newWebhookSecret, openKeys, sealKeys } from './crypto.js';
import * as data from './data.js';
import { EVENT_NAMES, isEventName } from './events.js';
import * as ops from './operations.data.js';
import { addressProblem, urlProblem } from './ssrf.js';

export interface WebhookView {
  id: number;
  webhookUrl: string;
  events: string[];
  status: 'active' | 'disabled';
  disabledReason: string | null;
  createdAt: string;
}

export interface DeliveryView {
  id: number;
  eventId: string;
  event: string;
  payload: unknown;
  statusCode: number | null;
  attempts: number;
  error: string | null;
  status: 'PENDING' | 'DELIVERED' | 'FAILED' | 'SKIPPED';
  createdAt: string;
  lastAttemptAt: string | null;
}

export interface WebhookChanges {
  webhookUrl?: unknown;
  events?: unknown;
  status?: unknown;
}

const MAX_URL_LENGTH = 2048;
/** Live webhooks per account (docs/decisions.md): bounds what one account's facts can fan out to. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
/** Delivery logs (up to 256 KiB of payloads each) one account reads at once per process; the rest wait their turn. */
const LOG_READS_PER_ACCOUNT = 2;
export const MAX_OVERLAP_HOURS = 168;
const DISABLED_BY_MERCHANT = 'Disabled by the merchant';

export class WebhookService {
  private readonly logReads = new KeyedLimit<number>(LOG_READS_PER_ACCOUNT);

  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  async create(accountId: number, input: { webhookUrl: unknown; events: unknown }, actor: Actor) {
    const url = await this.checkUrl(input.webhookUrl);
    const events = checkEvents(input.events);
    const secret = newWebhookSecret();
    const row = await this.db.tx(async (tx) => {
      if ((await data.lockAndCountWebhooks(tx, accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
        throw validation(
          `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one before creating another`,
        );
      }
      const inserted = await data
        .insertWebhook(tx, accountId, url, events, sealKeys(this.config.secretsKey, secret))
        .catch((err: unknown) => {
          // only the operator's command names an account that may not exist (the API's is the caller's own)
          throw isForeignKeyViolation(err) ? notFound(`no account with id ${accountId}`) : err;
        });
      await recordAudit(tx, accountId, actor, {
        action: 'webhook.created',
        target: `webhook:${inserted.id}`,
      });
      return inserted;
    });
    return { ...view(row), secret: secret as string };
  }

  async list(accountId: number): Promise<WebhookView[]> {
    return (await data.listWebhooks(this.db, accountId)).map(view);
  }

  /** URL, events and status (`active` re-enables a disabled webhook; `disabled` stops its deliveries). */
  async update(accountId: number, id: number, input: WebhookChanges, actor: Actor) {
    if (input.webhookUrl === undefined && input.events === undefined && input.status === undefined) {
      throw validation('Send webhookUrl, events and/or status');
    }
    if (input.status !== undefined && input.status !== 'active' && input.status !== 'disabled') {
      throw validation('status must be "active" or "disabled"');
    }
    if (!(await data.findWebhook(this.db, accountId, id))) throw notFound('Webhook not found');
    const changes = {
      ...(input.webhookUrl !== undefined ? { url: await this.checkUrl(input.webhookUrl) } : {}),
      ...(input.events !== undefined ? { events: checkEvents(input.events) } : {}),
    };
    const row = await this.db.tx(async (tx) => {
      if (input.status === 'active') await ops.enableWebhook(tx, id);
      if (input.status === 'disabled') await ops.disableWebhook(tx, id, DISABLED_BY_MERCHANT);
      const updated = await data.updateWebhook(tx, accountId, id, changes);
      if (!updated) throw notFound('Webhook not found');
      await recordAudit(tx, accountId, actor, { action: 'webhook.updated', target: `webhook:${id}` });
      return updated;
    });
    return view(row);
  }

  async remove(accountId: number, id: number, actor: Actor): Promise<void> {
    await this.db.tx(async (tx) => {
      if (!(await data.deleteWebhook(tx, accountId, id))) throw notFound('Webhook not found');
      await recordAudit(tx, accountId, actor, { action: 'webhook.deleted', target: `webhook:${id}` });
    });
  }

  /**
   * The delivery log as JSON text: each entry's `payload` is the stored body spliced in as the bytes that
   * were sent, never parsed and re-serialized (parsing a page of large sales cost several times its size in objects).
   */
  async deliveriesJson(accountId: number, webhookId: number, limit: number): Promise<string> {
    return this.logReads.run(accountId, async () => {
      await this.mustExist(accountId, webhookId);
      const rows = await data.listDeliveries(this.db, webhookId, limit);
      return `[${rows.map(deliveryJson).join(',')}]`;
    });
  }

  /** Manual redelivery: same bytes and event id, fresh signature, `X-Service-Redelivery: true`; one attempt. */
  async resend(accountId: number, deliveryId: number): Promise<DeliveryView> {
    const row = await data.markForResend(this.db, accountId, deliveryId);
    if (row === 'disabled') throw refusedWhileDisabled();
    if (!row) throw notFound('Delivery not found');
    return deliveryView(row);
  }

  /**
   * A new secret; for `overlapHours` the old one keeps signing X-Service-Signature and the new one signs
   * X-Service-Signature-Next (both in webhook-signature), then only the new one signs.
   */
  async rotateSecret(accountId: number, id: number, overlapHours: number, actor: Actor) {
    if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > MAX_OVERLAP_HOURS) {
      throw validation(`overlapHours must be a whole number from 0 to ${MAX_OVERLAP_HOURS}`);
    }
    const secret = newWebhookSecret();
    await this.db.tx(async (tx) => {
      const stored = await ops.lockKeys(tx, accountId, id);
      if (stored === null) throw notFound('Webhook not found');
      const old = openKeys(this.config.secretsKey, stored).current;
      const keys = {
        current: secret,
        previous: overlapHours > 0 ? old : null,
        previousUntilMs: Date.now() + overlapHours * 3_600_000,
      };
      await ops.replaceKeys(tx, accountId, id, sealKeys(this.config.secretsKey, keys));
      await recordAudit(tx, accountId, actor, { action: 'webhook.secret_rotated', target: `webhook:${id}` });
    });
    return { secret: secret as string };
  }

  /**
   * A `webhook.test` delivery to this webhook only, logged like any other: SKIPPED while the webhook is
   * disabled. `admit` runs once the webhook is known to be the account's: the rate limit of test deliveries.
   */
  async sendTest(
    accountId: number,
    id: number,
    admit?: () => undefined | Promise<void>,
  ): Promise<{ eventId: string }> {
    await this.mustExist(accountId, id);
    await admit?.();
    const body = { type: 'TEST', webhookId: id, date: new Date().toISOString() };
    const eventId = await this.db.tx((tx) => ops.enqueueTest(tx, accountId, id, body));
    return { eventId };
  }

  async recover(accountId: number, id: number, since: Date, until: Date, actor: Actor) {
    if (since.getTime() >= until.getTime()) throw validation('since must be before until');
    const queued = await this.db.tx(async (tx) => {
      const status = await ops.lockStatus(tx, accountId, id);
      if (status === null) throw notFound('Webhook not found');
      if (status === 'disabled') throw refusedWhileDisabled();
      const n = await ops.recoverDeliveries(tx, id, since, until);
      await recordAudit(tx, accountId, actor, { action: 'webhook.recovered', target: `webhook:${id}` });
      return n;
    });
    return { queued };
  }

  async stats(accountId: number, id: number, hours: number): Promise<ops.WebhookStats> {
    await this.mustExist(accountId, id);
    return ops.webhookStats(this.db, id, hours);
  }

  private async mustExist(accountId: number, id: number): Promise<void> {
    if (!(await data.findWebhook(this.db, accountId, id))) throw notFound('Webhook not found');
  }

  private async checkUrl(raw: unknown): Promise<string> {
    if (typeof raw !== 'string' || raw.length === 0)
      throw validation('webhookUrl must be a non-empty string');
    if (raw.length > MAX_URL_LENGTH)
      throw validation(`webhookUrl must be at most ${MAX_URL_LENGTH} characters`);
    const problem = urlProblem(raw) ?? (this.config.webhookAllowPrivate ? null : await addressProblem(raw));
    if (problem) throw validation(problem);
    return raw;
  }
}

/** A non-empty list of the API's event names, or ["*"] alone (every sale and withdrawal event). */
function checkEvents(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw validation('events must be a non-empty list of event names, or ["*"]');
  }
  if (raw.includes('*')) {
    if (raw.every((e) => e === '*')) return ['*'];
    throw validation(
      '"*" stands alone: send ["*"], or list the event names (cart, dispute, anticipation, subscription and invoice events are never in "*")',
    );
  }
  for (const e of raw) {
    if (!isEventName(e)) {
      throw validation(
        `Unknown event ${JSON.stringify(e)}; known events: ${EVENT_NAMES.join(', ')} or ["*"]`,
      );
    }
  }
  return [...new Set(raw as string[])];
}

function view(row: data.WebhookRow): WebhookView {
  return {
    id: Number(row.id),
    webhookUrl: row.url,
    events: row.events,
    status: row.status,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at.toISOString(),
  };
}

/** One log entry, key order as documented, with the stored body as `payload` (it is JSON text already). */
function deliveryJson(row: data.DeliveryRow): string {
  const { payload: _, ...rest } = deliveryView(row, null);
  const head = JSON.stringify({ id: rest.id, eventId: rest.eventId, event: rest.event });
  const tail = JSON.stringify({
    statusCode: rest.statusCode,
    attempts: rest.attempts,
    error: rest.error,
    status: rest.status,
    createdAt: rest.createdAt,
    lastAttemptAt: rest.lastAttemptAt,
  });
  return `${head.slice(0, -1)},"payload":${row.webhook_body},${tail.slice(1)}`;
}

function deliveryView(row: data.DeliveryRow, payload: unknown = JSON.parse(row.webhook_body)): DeliveryView {
  return {
    id: Number(row.id),
    eventId: row.event_id,
    event: row.event_type,
    payload,
    statusCode: row.status_code,
    attempts: row.attempts,
    error: row.error,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    lastAttemptAt: row.last_attempt_at ? new Date(row.last_attempt_at).toISOString() : null,
  };
}

/**
 * A disabled webhook gets no deliveries (decisions.md): resending to it waits for it to be re-enabled. 400
 * VALIDATION_ERROR: panel routes answer only the codes decisions.md lists.
 */
function refusedWhileDisabled(): AppError {
  return new AppError(
    'VALIDATION_ERROR',
    'This webhook is disabled: re-enable it (PUT /api/webhook/{id} with {"status": "active"}) before resending',
  );
}
