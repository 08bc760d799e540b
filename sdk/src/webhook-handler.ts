import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebhookVerificationError } from './errors.js';
import {
  EventIdDeduplicator,
  secretsOf,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
} from './webhooks.js';

/** Where the ids of handled events are kept: EventIdDeduplicator in one process, a unique column with several. */
export interface EventIdStore {
  /** True the first time an id is seen (and from then on remembered). */
  firstTime(eventId: string): boolean | Promise<boolean>;
  /** Forgets an id whose handling failed, so the gateway's retry is handled. */
  forget(eventId: string): void | Promise<void>;
}

export interface HandleWebhookOptions extends VerifyWebhookOptions {
  /** Called once per event id, after the delivery verified; a throw answers 500 and the delivery is retried. */
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  deduplicator: EventIdStore;
}

/** What to answer the gateway: 200 handled (or a repeat), 400 not verified, 500 the handler failed. */
export interface WebhookAnswer {
  status: 200 | 400 | 500;
  /** The text to answer: the reason a delivery did not verify; never the handler's error (the gateway keeps it). */
  message: string;
  /** With 500: what `onEvent` threw, for the receiver's own log. */
  error?: unknown;
}

/**
 * A delivery from start to answer, for any framework: verifies it (400 with the reason when it does not), skips
 * an event id already handled (200: a retry or a resend), calls `onEvent`, and answers 200; when `onEvent`
 * throws, the id is forgotten and the answer is 500, so the gateway's retry runs it again.
 */
export async function handleWebhook(options: HandleWebhookOptions): Promise<WebhookAnswer> {
  const { onEvent, deduplicator, ...verify } = options;
  let event: WebhookEvent;
  try {
    event = verifyWebhook(verify);
  } catch (err) {
    if (err instanceof WebhookVerificationError) return { status: 400, message: err.message };
    throw err;
  }
  if (!(await deduplicator.firstTime(event.eventId))) return { status: 200, message: 'already handled' };
  try {
    await onEvent(event);
  } catch (err) {
    await deduplicator.forget(event.eventId);
    return { status: 500, message: 'the receiver failed to handle this event; it is retried', error: err };
  }
  return { status: 200, message: 'ok' };
}

export interface WebhookHandlerOptions
  extends Omit<HandleWebhookOptions, 'body' | 'headers' | 'deduplicator'> {
  /** Default: an EventIdDeduplicator of this handler (one process's memory, 24 hours). */
  deduplicator?: EventIdStore;
  /** Told of an `onEvent` that threw (the delivery was answered 500). Default: console.error. */
  onError?: (error: string, eventId: string | undefined) => void;
}

/**
 * handleWebhook as a request handler of Node's `http` (and of frameworks built on it, mounted before any body
 * parser: it reads the raw body itself): `createServer(webhookHandler({ secret, onEvent }))`.
 */
export function webhookHandler(
  options: WebhookHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { deduplicator: store, onError: report, ...handle } = options;
  secretsOf(handle.secret); // a secret missing fails here, as the server is set up, not at the first delivery
  const deduplicator = store ?? new EventIdDeduplicator();
  const onError =
    report ?? ((error: string, id?: string) => console.error(`webhook ${id ?? ''} failed: ${error}`));
  return async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = await handleWebhook({
      ...handle,
      deduplicator,
      body: Buffer.concat(chunks),
      headers: req.headers,
    });
    if (answer.status === 500) {
      const { error } = answer;
      onError(
        error instanceof Error ? error.message : String(error),
        req.headers['webhook-id'] as string | undefined,
      );
    }
    res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' }).end(answer.message);
  };
}
