/**
 * The panel's one client of the gateway: the documented panel routes only, with the session cookie (HttpOnly,
 * sent by the browser) and the CSRF token kept in memory (never in localStorage). Errors come back as the
 * messages the API wrote, in words.
 */
export interface User {
  id: number;
  name: string;
  email: string;
  totpEnabled: boolean;
}
export interface Balance {
  available: number;
  blocked: number;
  total: number;
}
export interface Sale {
  id: number;
  uuid: string;
  status: string;
  paymentMethod: string;
  amount: string;
  fee: number | string;
  netAmount: number | string;
  createdAt: string;
  customer: { name: string; email: string; document: string };
  [k: string]: unknown;
}
export interface Withdrawal {
  id: number;
  uuid: string;
  amount: string;
  netAmount: string;
  pixKey: string;
  pixKeyType: string;
  status: string;
  createdAt: string;
  updatedAt?: string;
  fees: { fixed: string; variable: string; total: string };
}
export interface StatementLine {
  id: number;
  createdAt: string;
  description: string;
  refType: string;
  refId: number;
  availableDelta: number;
  blockedDelta: number;
  availableAfter: number;
  blockedAfter: number;
}
export interface Credential {
  id: number;
  name: string;
  scope: 'full' | 'read';
  publicKey: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  lastUsedIp: string | null;
}
export interface IssuedCredential extends Omit<Credential, 'lastUsedAt' | 'lastUsedIp'> {
  privateKey: string;
}
export interface Webhook {
  id: number;
  webhookUrl: string;
  events: string[];
  status: 'active' | 'disabled';
  disabledReason: string | null;
  createdAt: string;
  secret?: string;
}
export interface WebhookStats {
  delivered: number;
  failed: number;
  pending: number;
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
}
export interface AuditEntry {
  id: number;
  at: string;
  actor: { type: 'user' | 'api_key' | 'operator'; id: number | null; label: string };
  action: string;
  target: string | null;
  ip: string | null;
  userAgent: string | null;
}
export interface Delivery {
  id: number;
  eventId: string;
  event: string;
  payload: unknown;
  statusCode: number | null;
  attempts: number;
  error: string | null;
  status: string;
  createdAt: string;
  lastAttemptAt: string | null;
}
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

let csrf = '';
let user: User | null = null;
let onExpired: () => void = () => undefined;

export function whenSessionExpires(handler: () => void): void {
  onExpired = handler;
}

async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' && csrf ? { 'x-csrf-token': csrf } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) {
    const { message, code } = errorOf(data, res.status);
    // a 401 may be a wrong confirmation password: only a session that is really gone sends the user to login
    if (res.status === 401 && path !== '/api/auth/login' && path !== '/api/auth/me') {
      const alive = await fetch('/api/auth/me', { credentials: 'same-origin' }).then(
        (r) => r.ok,
        () => false,
      );
      if (!alive) onExpired();
    }
    throw new ApiError(res.status, message, code);
  }
  return data as T;
}

/** Every error shape of the API (A–E) read as a message and a code. */
function errorOf(data: Record<string, unknown> | null, status: number): { message: string; code: string } {
  const nested = data?.error as { code?: string; message?: string } | undefined;
  if (nested && typeof nested === 'object') return { message: nested.message ?? '', code: nested.code ?? '' };
  const message = typeof data?.message === 'string' ? data.message : `Erro ${status}`;
  const code = String(data?.errorType ?? data?.code ?? data?.error ?? status);
  return { message, code };
}

const query = (params: Record<string, string | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
};

export const api = {
  /** The logged-in user, as the last login or `me` answered. */
  user: () => user,
  async login(email: string, password: string, totpCode?: string): Promise<User> {
    const r = await request<{ user: User; csrfToken: string }>('POST', '/api/auth/login', {
      email,
      password,
      ...(totpCode ? { totpCode } : {}),
    });
    csrf = r.csrfToken;
    user = r.user;
    return r.user;
  },
  async me(): Promise<User> {
    const r = await request<{ user: User; csrfToken: string }>('GET', '/api/auth/me');
    csrf = r.csrfToken;
    user = r.user;
    return r.user;
  },
  async logout(): Promise<void> {
    await request('POST', '/api/auth/logout');
    csrf = '';
    user = null;
  },
  totpSetup: () => request<{ secret: string; otpauthUrl: string }>('POST', '/api/auth/totp/setup'),
  totpEnable: (code: string) => request<void>('POST', '/api/auth/totp/enable', { code }),
  totpDisable: (code: string) => request<void>('POST', '/api/auth/totp/disable', { code }),
  audit: (cursor?: string) =>
    request<Page<AuditEntry>>('GET', `/api/audit-log${query({ limit: '50', cursor })}`),
  balance: () => request<Balance>('GET', '/api/balance'),
  sales: (f: Record<string, string | undefined>) => request<Page<Sale>>('GET', `/api/sales${query(f)}`),
  sale: (id: string) => request<Sale>('GET', `/api/sales/${encodeURIComponent(id)}`),
  withdrawals: (f: Record<string, string | undefined>) =>
    request<Page<Withdrawal>>('GET', `/api/withdrawals${query(f)}`),
  withdrawal: (id: string) => request<Withdrawal>('GET', `/api/withdrawals/${encodeURIComponent(id)}`),
  withdraw: (
    body: { amount: string; pixKey: string; pixKeyType: string; password?: string; totpCode?: string },
    key: string,
  ) => request<Withdrawal>('POST', '/api/withdrawals', body, { 'idempotency-key': key }),
  statement: (f: Record<string, string | undefined>) =>
    request<Page<StatementLine>>('GET', `/api/statement${query(f)}`),
  exportUrl: (what: 'sales' | 'withdrawals' | 'statement', f: Record<string, string | undefined>) =>
    `/api/${what}/export.csv${query(f)}`,
  credentials: () => request<Credential[]>('GET', '/api/credentials'),
  createCredential: (body: { name?: string; scope?: 'full' | 'read'; expiresAt?: string }) =>
    request<IssuedCredential>('POST', '/api/credentials', body),
  rollCredential: (id: number, graceHours: number) =>
    request<IssuedCredential>('POST', `/api/credentials/${id}/roll`, { graceHours }),
  revokeCredential: (id: number) => request<void>('DELETE', `/api/credentials/${id}`),
  allowedIps: () => request<{ ips: string[] }>('GET', '/api/settings/allowed-ips'),
  saveAllowedIps: (ips: string[]) => request<{ ips: string[] }>('PUT', '/api/settings/allowed-ips', { ips }),
  webhooks: () => request<Webhook[]>('GET', '/api/webhook'),
  createWebhook: (webhookUrl: string, events: string[]) =>
    request<Webhook & { secret: string }>('POST', '/api/webhook', { webhookUrl, events }),
  updateWebhook: (id: number, webhookUrl: string, events: string[]) =>
    request<Webhook>('PUT', `/api/webhook/${id}`, { webhookUrl, events }),
  setWebhookStatus: (id: number, status: 'active' | 'disabled') =>
    request<Webhook>('PUT', `/api/webhook/${id}`, { status }),
  deleteWebhook: (id: number) => request<void>('DELETE', `/api/webhook/${id}`),
  rotateSecret: (id: number, overlapHours: number) =>
    request<{ secret: string }>('POST', `/api/webhook/${id}/rotate-secret`, { overlapHours }),
  testWebhook: (id: number) => request<{ eventId: string }>('POST', `/api/webhook/${id}/test`),
  recover: (id: number, since: string) =>
    request<{ queued: number }>('POST', `/api/webhook/${id}/recover`, { since }),
  webhookStats: (id: number) => request<WebhookStats>('GET', `/api/webhook/${id}/stats?hours=24`),
  deliveries: (id: number) => request<Delivery[]>('GET', `/api/webhook/${id}/deliveries?limit=50`),
  resend: (deliveryId: number) => request<unknown>('POST', `/api/webhook/deliveries/${deliveryId}/resend`),
};
