/**
 * The local PSP as `gateway dev-psp` runs it for trying the rails by hand: what a bank would do by itself
 * (complete a send, return a refund) happens without a test's hand.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevPsp } from '../../src/devpsp/server.js';
import { PixApiClient } from '../../src/payment-standards/pix-api-client.js';
import { freePort } from '../support/ports.js';
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
      recurringAccount: null,
    },
    5000,
  );
});
/** A request over the PSP's mutual TLS, for what the standard's client does not send. */
function fetchWithCerts(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) {
  const dispatcher = new Agent({
    connect: { cert: psp.certs.clientCert, key: psp.certs.clientKey, ca: psp.certs.ca },
  });
  return undiciFetch(url, { ...init, dispatcher }).finally(() => dispatcher.close());
}

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
    // the devoluções of a Pix never add up to more than it (PixDevolucaoInvalida), its amount given back already
    const more = await client.call<{ type: string }>('PUT', `/pix/${pix.endToEndId}/devolucao/d2`, {
      valor: '0.01',
    });
    expect(more.status).toBe(400);
    expect(more.body.type).toBe('https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida');
  });
  it("pays a boleto's Pix by hand (POST /dev/cobv/{txid}/pay): today's amount, another, or a second time", async () => {
    const txid = 'devpspCobvPaidByHand000000001';
    const cobv = await client.call('PUT', `/cobv/${txid}`, {
      calendario: { dataDeVencimento: '2099-01-10', validadeAposVencimento: 30 },
      devedor: { cpf: '52998224725', nome: 'Maria Silva' },
      valor: { original: '25.00' },
      chave: 'loja@example.com',
    });
    expect(cobv.status, JSON.stringify(cobv.body)).toBe(201);
    const paid = await client.call<{ valor: string; txid: string }>('POST', `/dev/cobv/${txid}/pay`, {});
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ txid, valor: '25.00' });
    const twice = await client.call('POST', `/dev/cobv/${txid}/pay`, {});
    expect(twice.status).toBe(409);
    const again = await client.call<{ valor: string }>('POST', `/dev/cobv/${txid}/pay`, {
      again: true,
      amountCents: 1234,
    });
    expect(again.status).toBe(200);
    expect(again.body.valor).toBe('12.34');
    expect((await client.call('POST', '/dev/cobv/unknownTxid0000000000000001/pay', {})).status).toBe(404);
  });

  it('pays a charge by hand (POST /dev/cob/{txid}/pay), even with an empty JSON body; a removed one is refused, 409', async () => {
    const open = async (txid: string) => {
      const cob = await client.call('PUT', `/cob/${txid}`, {
        calendario: { expiracao: 3600 },
        valor: { original: '10.00' },
        chave: 'loja@example.com',
      });
      expect(cob.status).toBe(201);
    };
    const token = (await (
      await fetchWithCerts(`${psp.url}/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${psp.clientId}:${psp.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      })
    ).json()) as { access_token: string };
    const payEmpty = (txid: string) =>
      fetchWithCerts(`${psp.url}/dev/cob/${txid}/pay`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      });
    await open('devpspCobPaidEmptyBody000001');
    const paid = await payEmpty('devpspCobPaidEmptyBody000001');
    expect(paid.status).toBe(200);
    expect(((await paid.json()) as { valor: string }).valor).toBe('10.00');

    // a lost webhook on purpose, and a gateway that does not take it: the Pix is paid either way, and it says so
    const payWith = (txid: string, body: unknown) =>
      fetchWithCerts(`${psp.url}/dev/cob/${txid}/pay`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await open('devpspCobPaidNoWebhook00001');
    const quiet = await payWith('devpspCobPaidNoWebhook00001', { webhook: false, amountCents: 900 });
    expect(quiet.status).toBe(200);
    expect(await quiet.json()).toMatchObject({ valor: '9.00', webhook: 'not sent ({"webhook": false})' });
    const down = await freePort();
    psp.state.webhooks.set('loja@example.com', `http://127.0.0.1:${down}/webhook`);
    await open('devpspCobPaidGatewayDown001');
    const unheard = await payWith('devpspCobPaidGatewayDown001', {});
    expect(unheard.status).toBe(200);
    expect(((await unheard.json()) as { webhook: string }).webhook).toMatch(
      /^not delivered \(ECONNREFUSED\)/,
    );
    psp.state.webhooks.delete('loja@example.com');

    await open('devpspCobRemovedThenPaid0001');
    const removed = await client.call('PATCH', '/cob/devpspCobRemovedThenPaid0001', {
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    });
    expect(removed.status).toBe(200);
    const received = psp.state.pix.size;
    const refused = await client.call<{ detail: string }>(
      'POST',
      '/dev/cob/devpspCobRemovedThenPaid0001/pay',
      {},
    );
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    const twice = await payEmpty('devpspCobPaidEmptyBody000001');
    expect(twice.status).toBe(409);
    expect(psp.state.pix.size).toBe(received);
  });
  it('lists received Pix by GET /pix as the yaml defines it: window, pages, devoluções', async () => {
    const from = new Date().toISOString();
    const paid = [];
    for (let i = 0; i < 5; i++) {
      const txid = `devpspListed00000000000000${i}`;
      await client.call('PUT', `/cob/${txid}`, { valor: { original: '2.00' }, chave: 'loja@example.com' });
      paid.push(await psp.pay(txid));
    }
    psp.refundAtConsole(paid[1]!.endToEndId);
    const to = new Date(Date.now() + 1000).toISOString();
    type Page = {
      parametros: { paginacao: Record<string, number> };
      pix: { endToEndId: string; devolucoes?: { status: string }[] }[];
    };
    const page = (n: number, per?: number) =>
      client.call<Page>(
        'GET',
        `/pix?${new URLSearchParams({ inicio: from, fim: to, 'paginacao.paginaAtual': String(n), ...(per ? { 'paginacao.itensPorPagina': String(per) } : {}) })}`,
      );
    const first = await page(0, 2);
    expect(first.status).toBe(200);
    expect(first.body.parametros.paginacao).toEqual({
      paginaAtual: 0,
      itensPorPagina: 2,
      quantidadeDePaginas: 3,
      quantidadeTotalDeItens: 5,
    });
    const all = [...first.body.pix, ...(await page(1, 2)).body.pix, ...(await page(2, 2)).body.pix];
    expect(all.map((p) => p.endToEndId)).toEqual(paid.map((p) => p.endToEndId));
    expect(all[1]!.devolucoes).toMatchObject([{ status: 'DEVOLVIDO' }]);
    expect(all[0]!.devolucoes).toBeUndefined();
    expect((await page(0)).body.parametros.paginacao.itensPorPagina).toBe(100);
    expect((await page(3, 2)).body.pix).toEqual([]);
    const bad = await client.call('GET', `/pix?inicio=${from}&fim=${from}&paginacao.itensPorPagina=1001`);
    expect(bad.status).toBe(400);
  });
});
