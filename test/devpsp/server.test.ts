/**
 * The local PSP as `gateway dev-psp` runs it for trying the rails by hand: what a bank would do by itself
 * (complete a send, return a refund) happens without a test's hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevPsp } from '../../src/devpsp/server.js';
import { PixApiClient } from '../../src/rails/pix-api-client.js';
import { waitUntil } from '../support/wait.js';

let psp: DevPsp;
let client: PixApiClient;

beforeAll(async () => {
  psp = new DevPsp({ settleSendsAfterMs: 50, settleRefundsAfterMs: 50 });
  const url = await psp.start();
  client = new PixApiClient(
    {
      apiUrl: url,
      oauthUrl: `${url}/oauth/token`,
      clientId: psp.clientId,
      clientSecret: psp.clientSecret,
      cert: psp.certs.clientCert,
      key: psp.certs.clientKey,
      ca: psp.certs.ca,
      receiverKey: 'loja@example.com',
      publicUrl: 'http://127.0.0.1:1',
      merchantName: 'X',
      merchantCity: 'Y',
      recurrenceAccountId: null,
    },
    5000,
  );
});
afterAll(async () => {
  await client?.close();
  await psp?.close();
});

describe('gateway dev-psp', () => {
  it('returns a refund by itself a moment after it is asked (DEVOLVIDO)', async () => {
    const txid = 'devpspRefundSettles0000000001';
    const cob = await client.call('PUT', `/cob/${txid}`, {
      calendario: { expiracao: 3600 },
      valor: { original: '10.00' },
      chave: 'loja@example.com',
    });
    expect(cob.status).toBe(201);
    const pix = await psp.pay(txid);
    const asked = await client.call<{ status: string }>('PUT', `/pix/${pix.endToEndId}/devolucao/d1`, {
      valor: '10.00',
    });
    expect(asked.body.status).toBe('EM_PROCESSAMENTO');
    const settled = await waitUntil(async () => {
      const res = await client.call<{ status: string }>('GET', `/pix/${pix.endToEndId}/devolucao/d1`);
      return res.body.status === 'DEVOLVIDO' ? res.body : undefined;
    });
    expect(settled.status).toBe('DEVOLVIDO');
  });
});
