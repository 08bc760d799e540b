import { Agent, request } from 'undici';
import { guardedLookup, isPublicAddress, literalAddress, refusedError, TARGET_REFUSED } from './ssrf.js';

/** Receivers' answers are read up to this many bytes and discarded; the rest of a larger body is cut off. */
export const RESPONSE_CAP_BYTES = 4096;

export type Outcome = 'delivered' | 'retry' | 'fail';

export interface AttemptResult {
  outcome: Outcome;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface ClientOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Sockets per target origin. */
  connectionsPerOrigin: number;
}

/** Outbound POSTs of notifications: SSRF-guarded at connect time, no redirects, bounded time and bytes. */
export class NotificationClient {
  private readonly agent: Agent;

  constructor(private readonly options: ClientOptions) {
    this.agent = new Agent({
      connections: options.connectionsPerOrigin,
      keepAliveTimeout: 10_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: {
        timeout: options.timeoutMs,
        ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
      },
    });
  }

  async post(rawUrl: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = performance.now();
    const done = (outcome: Outcome, statusCode: number | null, error: string | null): AttemptResult => ({
      outcome,
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const url = new URL(rawUrl);
      const literal = literalAddress(url);
      // An IP literal is connected to without any lookup, so the lookup guard cannot see it: check it here.
      if (!this.options.allowPrivate && literal && !isPublicAddress(literal)) {
        throw refusedError(`target is a non-public address (${literal})`);
      }
      const res = await request(url, {
        method: 'POST',
        body,
        headers,
        dispatcher: this.agent,
        signal,
      });
      await drain(res.body);
      const s = res.statusCode;
      if (s >= 200 && s < 300) return done('delivered', s, null);
      if (s >= 500) return done('retry', s, `HTTP ${s}`);
      if (s >= 300 && s < 400) return done('fail', s, `HTTP ${s} (redirects are not followed)`);
      return done('fail', s, `HTTP ${s}`);
    } catch (err) {
      if (isRefused(err)) return done('fail', null, `refused: ${(err as Error).message}`);
      if (signal.aborted) return done('retry', null, `no response within ${this.options.timeoutMs} ms`);
      return done('retry', null, describe(err));
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

async function drain(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<void> {
  let read = 0;
  for await (const chunk of body) {
    read += chunk.length;
    if (read > RESPONSE_CAP_BYTES) {
      body.destroy();
      return;
    }
  }
}

function isRefused(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 5; i++) {
    if (e.code === TARGET_REFUSED) return true;
    e = e.cause as typeof e;
  }
  return false;
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  const message = e.cause?.message ?? e.message ?? String(err);
  return (code ? `${code}: ${message}` : message).slice(0, 500);
}
