import type { DeliveryView } from '../../src/webhooks/webhooks.js';
import type { TestMerchant } from './factories.js';
import { call } from './http.js';
import type { TestServer } from './server.js';

export interface CreatedWebhook {
  id: number;
  webhookUrl: string;
  events: string[];
  secret: string;
  createdAt: string;
}

export async function createWebhook(
  server: TestServer,
  merchant: TestMerchant,
  webhookUrl: string,
  events: string[] = ['*'],
): Promise<CreatedWebhook> {
  const res = await call<CreatedWebhook>('POST', `${server.url}/api/webhook`, {
    headers: merchant.panel,
    body: { webhookUrl, events },
  });
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
  return res.body;
}

/** A delivery log entry as GET /api/webhook/{id}/deliveries answers it. */
export type DeliveryEntry = DeliveryView;

export async function deliveries(
  server: TestServer,
  merchant: TestMerchant,
  webhookId: number,
  limit = 100,
): Promise<DeliveryEntry[]> {
  const res = await call<DeliveryEntry[]>(
    'GET',
    `${server.url}/api/webhook/${webhookId}/deliveries?limit=${limit}`,
    {
      headers: merchant.panel,
    },
  );
  if (res.status !== 200) throw new Error(`deliveries failed: ${res.status} ${res.text}`);
  return res.body;
}
