import { Agent, type Dispatcher } from 'undici';
import { isPublicAddress } from '../platform/net/ip.js';
import { guardedLookup, literalAddress, TARGET_REFUSED } from './ssrf.js';

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
      // the attempt's own timer (timeoutMs, headers and body together) decides; undici's per-phase timeouts are a
      // backstop a second later, so the two never race at the same instant and the outcome reads the same
      headersTimeout: options.timeoutMs + 1000,
      bodyTimeout: options.timeoutMs + 1000,
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
    const { statusCode: s, error } = await this.send(target, body, headers);
    if (error === TIMED_OUT) return done('retry', null, `no response within ${this.options.timeoutMs} ms`);
    if (error && isRefused(error)) return done('fail', null, `refused: ${error.message}`);
    if (error) return done('retry', null, describe(error));
    if (s >= 200 && s < 300) return done('delivered', s, null);
    if (s >= 500) return done('retry', s, `HTTP ${s}`);
    if (s >= 300 && s < 400) return done('fail', s, `HTTP ${s} (redirects are not followed)`);
    return done('fail', s, `HTTP ${s}`);
  }

  /**
   * One POST through undici's dispatch API: the status is kept, the body counted up to the cap and dropped
   * (a larger one cuts the connection), and one timer bounds connect, headers and body together. The
   * request API costs more per attempt for what is thrown away here: a response stream and an abort signal
   * with its listeners (a visible share of the delivery process's CPU: docs/performance.md).
   */
  private send(target: Target, body: string, headers: Record<string, string>): Promise<Sent> {
    return new Promise<Sent>((resolve) => {
      const handler = new PostHandler(resolve);
      handler.timer = setTimeout(() => handler.timeOut(), this.options.timeoutMs);
      try {
        this.agent.dispatch(
          { origin: target.origin, path: target.path, method: 'POST', body, headers },
          handler,
        );
      } catch (err) {
        handler.fail(err as Error);
      }
    });
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

interface Sent {
  statusCode: number;
  error: Error | null;
}

const TIMED_OUT = new Error('timed out');

/** Settles once: at the response's end, its first error, the cap, or the timeout (which aborts the request). */
class PostHandler implements Dispatcher.DispatchHandler {
  timer: NodeJS.Timeout | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private statusCode = 0;
  private bytes = 0;
  private settled = false;

  constructor(private readonly resolve: (sent: Sent) => void) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // timed out while queued or connecting
    if (this.settled) controller.abort(TIMED_OUT);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.statusCode = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes > RESPONSE_CAP_BYTES && !this.settled) {
      this.settle({ statusCode: this.statusCode, error: null });
      controller.abort(new Error('response body over the cap'));
    }
  }

  onResponseEnd(): void {
    this.settle({ statusCode: this.statusCode, error: null });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  fail(error: Error): void {
    this.settle({ statusCode: 0, error });
  }

  timeOut(): void {
    if (this.settled) return;
    this.settle({ statusCode: 0, error: TIMED_OUT });
    this.controller?.abort(TIMED_OUT);
  }

  private settle(sent: Sent): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(sent);
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
