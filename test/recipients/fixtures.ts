import { expect } from 'vitest';
import type { TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import type { TestServer } from '../support/server.js';

export interface RecipientBody {
  id: string;
  name: string;
  document: string;
  email: string;
  pixKey: string;
  pixKeyType: string;
  transferInterval: string;
  createdAt: string;
}

export function recipientInput(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Loja da Ana',
    document: '529.982.247-25',
    email: 'ana@example.com',
    pixKey: 'ana@example.com',
    pixKeyType: 'EMAIL',
    ...overrides,
  };
}

export async function createRecipient(
  server: TestServer,
  m: TestMerchant,
  overrides: Record<string, unknown> = {},
): Promise<RecipientBody> {
  const res = await call<RecipientBody>('POST', `${server.url}/api/recipients`, {
    headers: m.keys,
    body: recipientInput(overrides),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

export async function recipientBalance(server: TestServer, m: TestMerchant, id: string) {
  const res = await call<{ available: number; blocked: number; receivable: number; total: number }>(
    'GET',
    `${server.url}/api/recipients/${id}/balance`,
    { headers: m.keys },
  );
  expect(res.status, res.text).toBe(200);
  return res.body;
}
