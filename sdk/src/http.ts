import { randomUUID } from 'node:crypto';
import { describeError, GatewayConnectionError, GatewayError } from './errors.js';

export interface ClientOptions {
  baseUrl: string;
  publicKey: string;
  privateKey: string;
  /** Per attempt: an attempt that outlives it is aborted and counts as a network failure. Default 30000. */
  timeoutMs?: number;
  /** Retries after the first attempt (429, 502, 503, 504, network failures). Default 2. */
  maxRetries?: number;
}

export interface RequestOptions {
  /** Sent as Idempotency-Key; a POST with one is retried with the same key. */
  idempotencyKey?: string;
}

const RETRIED = new Set([429, 502, 503, 504]);
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

/** The HTTP plumbing every resource shares: auth headers, JSON, errors, timeouts and retries. */
export class HttpClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;

  constructor(private readonly options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!/^https?:\/\/[^/]/i.test(options.baseUrl)) {
      throw new TypeError(
        `baseUrl must be the gateway's address with its scheme, such as http://localhost:3000, not "${options.baseUrl}"`,
      );
    }
    if (!options.publicKey || !options.privateKey)
      throw new TypeError('publicKey and privateKey are required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 2;
  }

  /** A new idempotency key (the create methods' default). */
  static newKey(): string {
    return randomUUID();
  }

  async request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    options: RequestOptions = {},
  ): Promise<T> {
    const res = await this.send(method, path, body, options);
    return parse(await res.text()) as T;
  }

  /**
   * The answer itself, its body unread (a PDF, an event stream), once its status is 2xx; a FormData body is
   * sent as multipart/form-data, any other as JSON.
   */
  async send(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    options: RequestOptions & {
      accept?: string;
      /** Instead of the per-attempt timeout (an event stream lasts as long as its reader wants). */
      signal?: AbortSignal;
      /** Headers of this request besides the keys' (an event stream's Last-Event-ID). */
      headers?: Record<string, string>;
    } = {},
  ): Promise<Response> {
    const form = body instanceof FormData;
    const headers: Record<string, string> = {
      ...options.headers,
      accept: options.accept ?? 'application/json',
      'x-api-public-key': this.options.publicKey,
      'x-api-private-key': this.options.privateKey,
    };
    if (body !== undefined && !form) headers['content-type'] = 'application/json';
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    // a POST without a key could be done twice by a retry: only reads and keyed POSTs are retried
    const retries = method === 'GET' || options.idempotencyKey !== undefined ? this.maxRetries : 0;
    const sent = body === undefined ? undefined : form ? body : toJson(body);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers,
          ...(sent !== undefined ? { body: sent } : {}),
          signal: options.signal ?? AbortSignal.timeout(this.timeoutMs),
          // the API never redirects: a 3xx is answered as it is (a GatewayError), never followed with the keys
          // (fetch would send the private key to wherever the redirect points)
          redirect: 'manual',
        });
      } catch (err) {
        // the caller's own abort is theirs, not a connection failure
        if (options.signal?.aborted) throw err;
        if (attempt >= retries) {
          throw new GatewayConnectionError(`${method} ${path}: no answer from ${this.baseUrl}`, {
            cause: err,
          });
        }
        await sleep(backoff(attempt));
        continue;
      }
      if (RETRIED.has(res.status) && attempt < retries) {
        const wait = retryAfter(res.headers.get('retry-after')) ?? backoff(attempt);
        await res.body?.cancel();
        await sleep(wait);
        continue;
      }
      if (!res.ok) {
        const parsed = parse(await res.text());
        const { code, message } = describeError(res.status, parsed);
        throw new GatewayError(res.status, code, message, res.headers.get('x-request-id'), parsed);
      }
      return res;
    }
  }
}

function parse(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Exponential backoff with full jitter: a random wait up to 0.5 s, 1 s, 2 s, … */
function backoff(attempt: number): number {
  return Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
function retryAfter(raw: string | null): number | null {
  if (raw === null) return null;
  if (/^\d+(\.\d+)?$/.test(raw.trim())) return Math.min(MAX_DELAY_MS, Number(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.min(MAX_DELAY_MS, Math.max(0, at - Date.now()));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The body as JSON, refusing what JSON cannot say: NaN and the infinities (JSON.stringify would send null). */
function toJson(body: unknown): string {
  return JSON.stringify(body, (key, value) => {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new TypeError(`${key || 'the body'} must be a finite number, not ${value}`);
    }
    return value;
  });
}
