import type { TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import type { TestServer } from '../support/server.js';

export interface LinkBody {
  id: string;
  url: string;
  slug: string;
  active: boolean;
  uses: number;
  title: string;
  amountCents: number | null;
  minCents: number | null;
  maxCents: number | null;
  methods: string[];
  maxUses: number | null;
  metadata: Record<string, string>;
  expiresAt: string | null;
}

export interface SessionBody {
  id: string;
  url: string;
  status: 'open' | 'paid' | 'expired';
  expiresAt: string;
  saleId: string | null;
  amountCents: number;
  metadata: Record<string, string>;
}

export interface PixPaymentBody {
  saleId: string;
  amountCents: number;
  pixCopyPaste: string;
  pixQrCode: string;
  expiresAt: string | null;
  payerToken: string;
}

/** A payer the pages accept (a CPF with right check digits). */
export const PAYER = { name: 'Maria Silva', email: 'maria@example.com', document: '529.982.247-25' };

export const linkInput = (overrides: Record<string, unknown> = {}) => ({
  title: 'Curso de fotografia',
  amountCents: 19900,
  methods: ['PIX'],
  ...overrides,
});

export const sessionInput = (overrides: Record<string, unknown> = {}) => ({
  amountCents: 9980,
  items: [{ title: 'Camiseta', unitPrice: 4990, quantity: 2, tangible: true }],
  methods: ['PIX'],
  successUrl: 'https://loja.example.com/obrigado?pedido=1001',
  metadata: { orderId: 'pedido-1001' },
  ...overrides,
});

export async function createLink(
  server: TestServer,
  merchant: TestMerchant,
  overrides: Record<string, unknown> = {},
): Promise<LinkBody> {
  const res = await call<LinkBody>('POST', `${server.url}/api/payment-links`, {
    headers: merchant.keys,
    body: linkInput(overrides),
  });
  if (res.status !== 201) throw new Error(`link creation failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function createSession(
  server: TestServer,
  merchant: TestMerchant,
  overrides: Record<string, unknown> = {},
): Promise<SessionBody> {
  const res = await call<SessionBody>('POST', `${server.url}/api/checkout/sessions`, {
    headers: merchant.keys,
    body: sessionInput(overrides),
  });
  if (res.status !== 201) throw new Error(`session creation failed: ${res.status} ${res.text}`);
  return res.body;
}

export const countRows = async (server: TestServer, table: string): Promise<number> =>
  (await server.runtime.platform.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
