/**
 * The panel's one client of the gateway: the documented panel routes only, with the session cookie (HttpOnly,
 * sent by the browser) and the CSRF token kept in memory (never in localStorage). Errors come back as the
 * messages the API wrote, in words.
 */
export interface User {
  id: number;
  name: string;
  email: string;
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
export interface FeePreview {
  amount: string;
  fees: { fixed: string; variable: string; total: string };
  netAmount: string;
  debited: string;
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
  publicKey: string;
  createdAt: string;
  lastUsedAt: string | null;
}
export interface Webhook {
  id: number;
  webhookUrl: string;
  events: string[];
  createdAt: string;
  secret?: string;
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
  async login(email: string, password: string): Promise<User> {
    const r = await request<{ user: User; csrfToken: string }>('POST', '/api/auth/login', {
      email,
      password,
    });
    csrf = r.csrfToken;
    return r.user;
  },
  async me(): Promise<User> {
    const r = await request<{ user: User; csrfToken: string }>('GET', '/api/auth/me');
    csrf = r.csrfToken;
    return r.user;
  },
  async logout(): Promise<void> {
    await request('POST', '/api/auth/logout');
    csrf = '';
  },
  balance: () => request<Balance>('GET', '/api/balance'),
  sales: (f: Record<string, string | undefined>) => request<Page<Sale>>('GET', `/api/sales${query(f)}`),
  sale: (id: string) => request<Sale>('GET', `/api/sales/${encodeURIComponent(id)}`),
  withdrawals: (f: Record<string, string | undefined>) =>
    request<Page<Withdrawal>>('GET', `/api/withdrawals${query(f)}`),
  withdrawal: (id: string) => request<Withdrawal>('GET', `/api/withdrawals/${encodeURIComponent(id)}`),
  withdraw: (body: { amount: string; pixKey: string; pixKeyType: string; password: string }, key: string) =>
    request<Withdrawal>('POST', '/api/withdrawals', body, { 'idempotency-key': key }),
  feePreview: (amount: string) =>
    request<FeePreview>('GET', `/api/withdrawals/fee-preview${query({ amount })}`),
  statement: (f: Record<string, string | undefined>) =>
    request<Page<StatementLine>>('GET', `/api/statement${query(f)}`),
  exportUrl: (what: 'sales' | 'withdrawals' | 'statement', f: Record<string, string | undefined>) =>
    `/api/${what}/export.csv${query(f)}`,
  credentials: () => request<Credential[]>('GET', '/api/credentials'),
  createCredential: () =>
    request<{ id: number; publicKey: string; privateKey: string; createdAt: string }>(
      'POST',
      '/api/credentials',
    ),
  revokeCredential: (id: number) => request<void>('DELETE', `/api/credentials/${id}`),
  allowedIps: () => request<{ ips: string[] }>('GET', '/api/settings/allowed-ips'),
  saveAllowedIps: (ips: string[]) => request<{ ips: string[] }>('PUT', '/api/settings/allowed-ips', { ips }),
  webhooks: () => request<Webhook[]>('GET', '/api/webhook'),
  createWebhook: (webhookUrl: string, events: string[]) =>
    request<Webhook & { secret: string }>('POST', '/api/webhook', { webhookUrl, events }),
  updateWebhook: (id: number, webhookUrl: string, events: string[]) =>
    request<Webhook>('PUT', `/api/webhook/${id}`, { webhookUrl, events }),
  deleteWebhook: (id: number) => request<void>('DELETE', `/api/webhook/${id}`),
  deliveries: (id: number) => request<Delivery[]>('GET', `/api/webhook/${id}/deliveries?limit=50`),
  resend: (deliveryId: number) => request<unknown>('POST', `/api/webhook/deliveries/${deliveryId}/resend`),
};
