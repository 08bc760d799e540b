import { Agent, request } from 'undici';
import type { BcbSettings } from '../platform/config/rails.js';

/** decisions.md: a PSP that does not answer within 30 s counts as failed. */
export const PSP_TIMEOUT_MS = 30_000;
/** A token is renewed this long before the PSP says it expires. */
const RENEW_BEFORE_MS = 60_000;

/**
 * RFC 6749 §2.3.1: the client id and secret are application/x-www-form-urlencoded before they are joined
 * with ":" and base64-encoded (a ":" in the id, or "%", "+", "&", non-ASCII, would otherwise be misread).
 */
export function formEncode(text: string): string {
  return new URLSearchParams([['', text]]).toString().slice(1);
}

/** A PSP answer's JSON; anything else is a PspError naming the call, never quoting the body. */
function parseAnswer<T>(text: string, call: string, status: number): T {
  if (!text) return null as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new PspError(`${call} answered ${status} with a body that is not JSON`, status);
  }
}

/** A call's resource without its ids (`/cob`, `/pix`): what a message may name. */
const resource = (path: string) => path.split('?')[0]!.split('/').slice(0, 2).join('/');

export class PspError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    /**
     * The call certainly never reached the PSP: no access token to send it with, or its connection refused or
     * never made. Any other failure may have reached it.
     */
    readonly notSent = false,
  ) {
    super(message);
  }
}

/** Connection failures before a request is written: the PSP cannot have received it. */
const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** What a failed request says of itself: its system or undici code (ECONNREFUSED, …), else its name. */
function failureCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  const code = e.code ?? e.cause?.code;
  return typeof code === 'string' ? code : String(e.name ?? 'Error');
}

export interface PspResponse<T> {
  status: number;
  body: T;
}

/**
 * The standard API Pix over mutual TLS with OAuth 2 client credentials. The token is cached until shortly
 * before it expires; a 401 (token revoked or expired early) renews it once and repeats the call, which is
 * safe because every call the adapter makes is idempotent (PUT by our own ids, GET, PATCH to a final status).
 */
export class PixApiClient {
  private readonly agent: Agent;
  private token: { value: string; renewAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly settings: BcbSettings,
    private readonly timeoutMs = PSP_TIMEOUT_MS,
  ) {
    this.agent = new Agent({
      // the connection and TLS handshake get the same time as the answer (undici's own default is 10 s)
      connect: { cert: settings.cert, key: settings.key, ca: settings.ca, timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  async call<T>(
    method: 'GET' | 'PUT' | 'POST' | 'PATCH',
    path: string,
    body?: unknown,
  ): Promise<PspResponse<T>> {
    let res = await this.send<T>(method, path, body, await this.accessToken());
    if (res.status === 401) {
      this.token = null;
      res = await this.send<T>(method, path, body, await this.accessToken());
    }
    return res;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async send<T>(method: string, path: string, body: unknown, token: string): Promise<PspResponse<T>> {
    const res = await request(`${this.settings.apiUrl}${path}`, {
      method,
      dispatcher: this.agent,
      signal: AbortSignal.timeout(this.timeoutMs),
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).catch((err: unknown) => {
      const code = failureCode(err);
      throw new PspError(failureText(code), null, NEVER_CONNECTED.has(code));
    });
    const text = await res.body.text().catch((err: unknown) => {
      throw new PspError(`PSP answer cut off (${(err as Error).name})`, res.statusCode);
    });
    return {
      status: res.statusCode,
      body: parseAnswer<T>(text, `${method} ${resource(path)}`, res.statusCode),
    };
  }

  private async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return this.token.value;
    // one token request at a time, however many calls need it
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    const { clientId, clientSecret } = this.settings;
    const basic = Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64');
    const res = await request(this.settings.oauthUrl, {
      method: 'POST',
      dispatcher: this.agent,
      signal: AbortSignal.timeout(this.timeoutMs),
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    }).catch((err: unknown) => {
      // no token, no call: whatever it was for was not sent
      throw new PspError(failureText(failureCode(err), 'PSP token endpoint unreachable'), null, true);
    });
    const json = (await res.body.json().catch(() => null)) as {
      access_token?: string;
      expires_in?: number;
    } | null;
    if (res.statusCode !== 200 || !json?.access_token) {
      throw new PspError(`PSP refused the client credentials (${res.statusCode})`, res.statusCode, true);
    }
    const lifetimeMs = (json.expires_in ?? 0) * 1000;
    this.token = {
      value: json.access_token,
      renewAt: Date.now() + Math.max(lifetimeMs / 2, lifetimeMs - RENEW_BEFORE_MS),
    };
    return json.access_token;
  }
}

/**
 * What a failed call (or token request) says: a TLS certificate refused (ours or the PSP's: PIX_CERT, PIX_KEY, PIX_CA) is not the
 * PSP down, and an operator reading it should look at the certificates, not at the network.
 */
function failureText(code: string, otherwise = 'PSP unreachable or too slow'): string {
  return /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|TLS|SSL|ALERT/i.test(code)
    ? `TLS with the PSP failed (${code}): check PIX_CERT, PIX_KEY and PIX_CA against the PSP's`
    : `${otherwise} (${code})`;
}
