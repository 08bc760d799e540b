import { createHmac } from 'node:crypto';
import { UsageError } from '../../platform/cli/command.js';
import { isEventName, signWebhook } from '../../webhooks/cli.js';
import type { WebhookSecret } from '../../webhooks/index.js';
import { keyHeaders, type Target } from './client.js';

export interface ListenOptions {
  forwardTo: string;
  events: string[] | null;
  /** Where each line goes (stdout). */
  print: (line: string) => void;
  /** Ends the listening (Ctrl-C). */
  signal: AbortSignal;
}

const FORWARD_TIMEOUT_MS = 10_000;
const MAX_RECONNECT_MS = 10_000;

/**
 * The listen secret of a key pair: the same every run with the same keys, so a receiver's configuration
 * survives restarts, and different for every key pair.
 */
export function listenSecret(target: Target): WebhookSecret {
  const key = createHmac('sha256', target.privateKey)
    .update(`gateway listen:${target.publicKey}`)
    .digest('base64');
  return `whsec_${key}` as WebhookSecret;
}

export function parseListenArgs(values: Record<string, string | boolean | undefined>): {
  forwardTo: string;
  events: string[] | null;
} {
  const forwardTo = values['forward-to'];
  if (typeof forwardTo !== 'string' || !/^https?:\/\/[^/]+/.test(forwardTo)) {
    throw new UsageError(
      '--forward-to needs an http(s) URL, e.g. --forward-to http://localhost:4242/webhooks',
    );
  }
  const raw = values.events;
  if (raw === undefined) return { forwardTo, events: null };
  const events = String(raw)
    .split(',')
    .map((e) => e.trim());
  const unknown = events.find((e) => !isEventName(e));
  if (unknown !== undefined) throw new UsageError(`--events: unknown event name "${unknown}"`);
  return { forwardTo, events };
}

/**
 * `gateway listen`: follows the account's event stream and POSTs each event's data to the forward URL with
 * the permanent-webhook headers, signed with the listen secret. A dropped connection is resumed after the last
 * event received (Last-Event-ID), so no event is lost or repeated. Runs until `signal` aborts.
 */
export async function listen(target: Target, options: ListenOptions): Promise<void> {
  const secret = listenSecret(target);
  const { print, signal } = options;
  // nothing is printed before the gateway has taken the key pair: a wrong key prints no "Ready" and no secret
  let announced = false;
  let lastEventId: string | null = null;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const query = options.events ? `?type=${encodeURIComponent(options.events.join(','))}` : '';
      const res = await fetch(`${target.url}/api/events/stream${query}`, {
        headers: {
          ...keyHeaders(target),
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal,
      });
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        // a refused key or filter will not get better by waiting
        if (res.status === 400 || res.status === 401 || res.status === 403) {
          throw new UsageError(`the event stream answered ${res.status}: ${text.slice(0, 200)}`);
        }
        throw new Error(`the event stream answered ${res.status}`);
      }
      failures = 0;
      if (!announced) {
        announced = true;
        print(`Ready: forwarding the events of ${target.url} to ${options.forwardTo} (Ctrl-C to stop)`);
        print(`Webhook signing secret: ${secret}`);
      }
      for await (const event of sseEvents(res.body)) {
        await forward(options, secret, event);
        lastEventId = event.id;
      }
      if (!signal.aborted) print(`${time()} connection closed by the gateway; resuming`);
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof UsageError) throw err;
      failures++;
      const wait = Math.min(MAX_RECONNECT_MS, 500 * 2 ** Math.min(failures, 5));
      print(
        `${time()} connection lost (${(err as Error).message}); reconnecting in ${(wait / 1000).toFixed(1)} s`,
      );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

interface StreamEvent {
  id: string;
  type: string;
  data: string;
}

async function forward(options: ListenOptions, secret: WebhookSecret, event: StreamEvent): Promise<void> {
  const { headers } = signWebhook(secret, event.id, event.type, event.data, false);
  let outcome: string;
  try {
    const res = await fetch(options.forwardTo, {
      method: 'POST',
      headers,
      body: event.data,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    outcome = `[${res.status}]`;
  } catch (err) {
    outcome = `[error: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}]`;
  }
  options.print(`${time()}  --> ${event.type} ${event.id} ${outcome} POST ${options.forwardTo}`);
}

/** The events of a Server-Sent Events body, as they arrive. */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
      }
      if (fields.id && fields.event && fields.data !== undefined) {
        yield { id: fields.id, type: fields.event, data: fields.data };
      }
      end = buffer.indexOf('\n\n');
    }
  }
}

const time = () => new Date().toISOString().slice(11, 19);
