import { v7 as uuidv7 } from 'uuid';
import { addRows, type GatheredWrite, type Queryable, whenCommitted } from '../platform/db/db.js';
import { countFact } from '../platform/observability/metrics.js';
import { targetGroup } from './deliveries.data.js';
import type { EventName } from './events.js';

/** One fact to notify, as it happened. Bodies are serialized here, once, and every attempt reuses the bytes. */
export interface NotificationFact {
  accountId: number;
  event: EventName;
  subjectType: 'sale' | 'withdrawal' | 'cart' | 'dispute' | 'anticipation' | 'subscription';
  subjectId: number;
  /** The body permanent webhooks receive (key order is the order sent). */
  webhookBody: object;
  /** The per-sale postback, when the sale has a postbackUrl and the status is final. */
  postback?: { url: string; body: object };
}

/**
 * A fact's event id (`X-Service-Event-Id`, `webhook-id`): a UUIDv7, whose leading bits are its creation time,
 * so the facts' primary key and the deliveries' (fact, webhook) index grow at their right edge instead of
 * at random pages (random v4 ids cost fan-out and fact recording more time: docs/performance.md).
 */
export function newEventId(): string {
  return uuidv7();
}

/**
 * Records a notification fact in the caller's transaction (outbox): the fact row and its notification_outbox
 * entry commit with the state change that caused them, or not at all. Every worker process's dispatcher fans
 * out committed facts from the outbox (fanout.ts; docs/decisions.md says why not a pg-boss job per fact).
 * Returns the stable event id.
 */
export async function recordNotification(tx: Queryable, fact: NotificationFact): Promise<string> {
  const [id] = await recordNotifications(tx, [fact]);
  return id!;
}

/**
 * recordNotification for many facts, in one statement whatever their number; returns their ids in order. In a
 * transaction that gathers writes (the charges opened together: Queryable.gather) the facts of all its writers
 * are written by one statement just before its COMMIT.
 */
export async function recordNotifications(tx: Queryable, facts: NotificationFact[]): Promise<string[]> {
  if (facts.length === 0) return [];
  const ids = facts.map(() => newEventId());
  await addRows(
    tx,
    FACTS,
    facts.map((fact, i) => ({ id: ids[i]!, fact })),
  );
  countWhenCommitted(tx, facts);
  return ids;
}

const FACTS: GatheredWrite<{ id: string; fact: NotificationFact }> = {
  async write(tx, items) {
    const { ctes, params } = factsInsert(
      items.map((item) => item.fact),
      1,
      items.map((item) => item.id),
    );
    // one text whatever the number of facts (arrays): parsed and planned once per connection
    await tx.query(`WITH ${ctes} SELECT 1`, params, { prepare: 'record_notifications_v1' });
  },
};

/**
 * Facts and their places in the outbox queue as parts of a larger statement (group commit): the CTEs `n`
 * (the facts) and `o` (their outbox rows) and their nine parameters from `$first` on (factColumns); each fact
 * gets a new event id unless `ids` gives them.
 */
export function factsInsert(
  facts: NotificationFact[],
  first: number,
  ids: string[] = facts.map(() => newEventId()),
): { ctes: string; params: unknown[][] } {
  const list = Array.from({ length: 9 }, (_, i) => `$${first + i}`);
  const types = ['uuid', 'bigint', 'text', 'text', 'bigint', 'text', 'text', 'text', 'text'];
  const ctes = `n AS (
       INSERT INTO notification_events
         (id, account_id, event_type, subject_type, subject_id, webhook_body, postback_url, postback_body,
          postback_host)
       SELECT * FROM unnest(${list.map((p, i) => `${p}::${types[i]}[]`).join(', ')})
       RETURNING id, created_at),
     o AS (INSERT INTO notification_outbox (event_id, created_at) SELECT id, created_at FROM n ORDER BY id)`;
  return { ctes, params: factColumns(facts, ids) };
}

/** Counts the facts in the metrics once committed: a group commit rolled back and run again would count twice. */
export function countWhenCommitted(tx: Queryable, facts: NotificationFact[]): void {
  whenCommitted(tx, () => {
    for (const f of facts) countFact(f.subjectType, f.webhookBody);
  });
}

/**
 * A notification body as sent: it states its event (`eventType`, the X-Service-Event-Type header's value), so
 * the signature covers the event and receivers read it from the body instead of inferring it from a status (a
 * partial refund's sale.refunded has the status PAGO). Every body of every channel passes here.
 */
export function withEventType(body: object, event: string): object {
  return { ...body, eventType: event };
}

/**
 * New facts as notification_events columns, one array each, in the order the outbox statements insert them
 * (id, account_id, event_type, subject_type, subject_id, webhook_body, postback_url, postback_body,
 * postback_host), with their event ids.
 */
function factColumns(facts: NotificationFact[], ids: string[]): unknown[][] {
  return [
    ids,
    facts.map((f) => f.accountId),
    facts.map((f) => f.event),
    facts.map((f) => f.subjectType),
    facts.map((f) => f.subjectId),
    facts.map((f) => JSON.stringify(withEventType(f.webhookBody, f.event))),
    facts.map((f) => f.postback?.url ?? null),
    facts.map((f) => (f.postback ? JSON.stringify(withEventType(f.postback.body, f.event)) : null)),
    facts.map((f) => (f.postback ? targetGroup(f.postback.url) : null)),
  ];
}
