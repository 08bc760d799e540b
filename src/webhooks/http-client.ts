import { Agent } from 'undici';
import { guardedLookup, isPublicAddress, literalAddress, TARGET_REFUSED } from './ssrf.js';

/** Receivers' answers are read up to this many bytes and discarded; the rest of a larger body is cut off. */
export const RESPONSE_CAP_BYTES = 4096;

export type Outcome = 'delivered' | 'retry' | 'fail';

export interface AttemptResult {
  outcome: Outcome;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

interface Target {
  origin: string;
  path: string;
}

/** Parsed target URLs kept per process (the cache starts over when full). */
const TARGET_CACHE_SIZE = 1024;

export interface ClientOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Sockets per target origin. */
  connectionsPerOrigin: number;
}

/** Outbound POSTs of notifications: SSRF-guarded at connect time, no redirects, bounded time and bytes. */
export class NotificationClient {
  private readonly agent: Agent;
  private readonly targets = new Map<string, Target | string>();

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
    const target = this.target(rawUrl);
    if (typeof target === 'string') return done('fail', null, target);
    // one timer per attempt bounds connect, headers and body together (AbortSignal.timeout measured ~3 % of
    // the delivery process's CPU: it registers every signal for garbage-collection tracking)
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    try {
      const res = await this.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        body,
        headers,
        signal: controller.signal,
      });
      // read up to the cap and discard; a larger body is cut off
      await res.body.dump({ limit: RESPONSE_CAP_BYTES, signal: controller.signal });
      const s = res.statusCode;
      if (s >= 200 && s < 300) return done('delivered', s, null);
      if (s >= 500) return done('retry', s, `HTTP ${s}`);
      if (s >= 300 && s < 400) return done('fail', s, `HTTP ${s} (redirects are not followed)`);
      return done('fail', s, `HTTP ${s}`);
    } catch (err) {
      if (isRefused(err)) return done('fail', null, `refused: ${(err as Error).message}`);
      if (controller.signal.aborted)
        return done('retry', null, `no response within ${this.options.timeoutMs} ms`);
      return done('retry', null, describe(err));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Where a URL's requests go, parsed once per URL text; an IP-literal target that is not public is refused
   * here (it is connected to without any lookup, so the lookup guard cannot see it). Returns the refusal.
   */
  private target(rawUrl: string): Target | string {
    let t = this.targets.get(rawUrl);
    if (t === undefined) {
      let url: URL;
      try {
        url = new URL(rawUrl);
      } catch {
        return 'invalid URL';
      }
      const literal = literalAddress(url);
      t =
        !this.options.allowPrivate && literal && !isPublicAddress(literal)
          ? `refused: target is a non-public address (${literal})`
          : { origin: url.origin, path: `${url.pathname}${url.search}` };
      if (this.targets.size >= TARGET_CACHE_SIZE) this.targets.clear();
      this.targets.set(rawUrl, t);
    }
    return t;
  }

  async close(): Promise<void> {
    await this.agent.close();
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
