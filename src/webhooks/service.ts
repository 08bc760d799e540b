import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import { notFound, validation } from '../platform/errors.js';
import { encryptSecret, newWebhookSecret } from './crypto.js';
import * as data from './data.js';
import { EVENT_NAMES, isEventName } from './events.js';
import { addressProblem, urlProblem } from './ssrf.js';

export interface WebhookView {
  id: number;
  webhookUrl: string;
  events: string[];
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
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  createdAt: string;
  lastAttemptAt: string | null;
}

const MAX_URL_LENGTH = 2048;

export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  async create(accountId: number, input: { webhookUrl: unknown; events: unknown }) {
    const url = await this.checkUrl(input.webhookUrl);
    const events = checkEvents(input.events);
    const secret = newWebhookSecret();
    const row = await data.insertWebhook(
      this.db,
      accountId,
      url,
      events,
      encryptSecret(this.config.secretsKey, secret),
    );
    return { ...view(row), secret: secret as string };
  }

  async list(accountId: number): Promise<WebhookView[]> {
    return (await data.listWebhooks(this.db, accountId)).map(view);
  }

  async update(accountId: number, id: number, input: { webhookUrl?: unknown; events?: unknown }) {
    if (input.webhookUrl === undefined && input.events === undefined) {
      throw validation('Send webhookUrl and/or events');
    }
    if (!(await data.findWebhook(this.db, accountId, id))) throw notFound('Webhook not found');
    const changes = {
      ...(input.webhookUrl !== undefined ? { url: await this.checkUrl(input.webhookUrl) } : {}),
      ...(input.events !== undefined ? { events: checkEvents(input.events) } : {}),
    };
    const row = await data.updateWebhook(this.db, accountId, id, changes);
    if (!row) throw notFound('Webhook not found');
    return view(row);
  }

  async remove(accountId: number, id: number): Promise<void> {
    if (!(await data.deleteWebhook(this.db, accountId, id))) throw notFound('Webhook not found');
  }

  async deliveries(accountId: number, webhookId: number, limit: number): Promise<DeliveryView[]> {
    if (!(await data.findWebhook(this.db, accountId, webhookId))) throw notFound('Webhook not found');
    return (await data.listDeliveries(this.db, webhookId, limit)).map(deliveryView);
  }

  /** Manual redelivery: same bytes and event id, fresh signature, `X-Service-Redelivery: true`; one attempt. */
  async resend(accountId: number, deliveryId: number): Promise<DeliveryView> {
    const row = await data.markForResend(this.db, accountId, deliveryId);
    if (!row) throw notFound('Delivery not found');
    return deliveryView(row);
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

/** A non-empty list of the spec's event names, or "*" (every event but cart.*), optionally with cart names. */
function checkEvents(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw validation('events must be a non-empty list of event names, or ["*"]');
  }
  for (const e of raw) {
    if (e !== '*' && !isEventName(e)) {
      throw validation(`Unknown event ${JSON.stringify(e)}; known events: ${EVENT_NAMES.join(', ')} or "*"`);
    }
  }
  return [...new Set(raw as string[])];
}

function view(row: data.WebhookRow): WebhookView {
  return {
    id: Number(row.id),
    webhookUrl: row.url,
    events: row.events,
    createdAt: row.created_at.toISOString(),
  };
}

function deliveryView(row: data.DeliveryRow): DeliveryView {
  return {
    id: Number(row.id),
    eventId: row.event_id,
    event: row.event_type,
    payload: JSON.parse(row.webhook_body) as unknown,
    statusCode: row.status_code,
    attempts: row.attempts,
    error: row.error,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    lastAttemptAt: row.last_attempt_at ? new Date(row.last_attempt_at).toISOString() : null,
  };
}
