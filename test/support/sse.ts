import { request } from 'undici';

export interface SseEvent {
  id: string;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: SseEvent[];
  comments: string[];
  /** Resolves once `count` events have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves when the server ends the stream (or the client closes it). */
  ended: Promise<void>;
  close(): void;
}

/** A real Server-Sent Events client: the response body read as it arrives, split into events and comments. */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const controller = new AbortController();
  const res = await request(url, { method: 'GET', headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  res.body.setEncoding('utf8');
  res.body.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: Partial<SseEvent> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        else {
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const value = line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id' || field === 'event' || field === 'data') event[field] = value;
        }
      }
      if (event.id !== undefined) events.push(event as SseEvent);
      for (const w of waiters.splice(0)) w();
      end = buffer.indexOf('\n\n');
    }
  });
  res.body.on('error', () => undefined);
  const ended = new Promise<void>((resolve) => {
    res.body.on('end', resolve);
    res.body.on('close', resolve);
  });
  return {
    ended,
    status: res.statusCode,
    headers: res.headers,
    events,
    comments,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count) {
        if (Date.now() > deadline) throw new Error(`timed out with ${events.length} of ${count} events`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return events.slice(0, count);
    },
    close() {
      controller.abort();
    },
  };
}
