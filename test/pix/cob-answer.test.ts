import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { brCode, crc16, hasValidCrc } from '../../src/payment-standards/brcode.js';
import { brCodeFields, isPixCopiaECola } from '../../src/pix/cob-answer.js';
import { type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';

// The PSP here answers PUT /cob wrongly on purpose, so its exchanges are not checked against the yaml.
let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;

const db = () => server.runtime.platform.db;
const charge = () =>
  call<SaleBody>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput({ amount: 1234 }),
  });
const salesCount = async () =>
  (await db().query<{ n: number }>('SELECT count(*)::int AS n FROM sales'))[0]!.n;
const staticCode = (amountCents?: number) =>
  brCode({
    kind: 'static',
    pixKey: 'a@b.c',
    merchantName: 'PSP',
    merchantCity: 'SP',
    ...(amountCents === undefined ? {} : { amountCents }),
  });

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await server?.close();
  await psp?.close();
});

describe('the PSP answer to PUT /cob is checked', () => {
  it('a valid pixCopiaECola of the right amount is used as is', async () => {
    let given = '';
    psp.tamperNextCob((a) => {
      given = a.pixCopiaECola as string;
      return a;
    });
    const res = await charge();
    expect(res.status, res.text).toBe(201);
    expect(res.body.pixKey).toBe(given);
  });

  it.each([
    ['a wrong CRC16', (code: string) => `${code.slice(0, -1)}${code.endsWith('0') ? '1' : '0'}`],
    ['arbitrary text', () => 'hello <script>'],
    ['a BR Code of another amount', () => staticCode(1235)],
    ['a non-string', () => 42],
  ])('a pixCopiaECola with %s falls back to the code built from the location', async (_, change) => {
    let location = '';
    psp.tamperNextCob((a) => {
      location = a.location as string;
      return { ...a, pixCopiaECola: change(a.pixCopiaECola as string) };
    });
    const res = await charge();
    expect(res.status, res.text).toBe(201);
    expect(res.body.pixKey).toContain(location);
    expect(hasValidCrc(res.body.pixKey!)).toBe(true);
    expect(isPixCopiaECola(res.body.pixKey, 1234)).toBe(true);
  });

  it.each([
    [
      'an invalid pixCopiaECola and no location',
      (a: Record<string, unknown>) => {
        const { location: _, ...rest } = a;
        return { ...rest, pixCopiaECola: 'hello <script>' };
      },
    ],
    [
      'an invalid pixCopiaECola and a location that is not a URL',
      (a: Record<string, unknown>) => ({
        ...a,
        pixCopiaECola: 'x',
        location: 'psp.example/<script>',
      }),
    ],
    ['another amount', (a: Record<string, unknown>) => ({ ...a, valor: { original: '12.35' } })],
    ['another txid', (a: Record<string, unknown>) => ({ ...a, txid: 'otherTxid0123456789abcdefgh' })],
    ['another receiver key', (a: Record<string, unknown>) => ({ ...a, chave: 'other@key.com' })],
    [
      'a charge already removed',
      (a: Record<string, unknown>) => ({ ...a, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }),
    ],
    [
      'no amount',
      (a: Record<string, unknown>) => {
        const { valor: _, ...rest } = a;
        return rest;
      },
    ],
  ])('%s → 502 PROCESSOR_ERROR, nothing stored, the charge removed at the PSP', async (_, change) => {
    const before = await salesCount();
    psp.tamperNextCob(change);
    const res = await charge();
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: 'PROCESSOR_ERROR' });
    expect(await salesCount()).toBe(before);
    const removed = [...psp.state.cobs.values()].at(-1)!;
    expect(removed.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
  });
});

describe('brCodeFields', () => {
  it('reads a valid code and refuses malformed ones', () => {
    expect(brCodeFields(staticCode(1000))?.get('54')).toBe('10.00');
    expect(isPixCopiaECola(staticCode(), 777)).toBe(true); // no amount field: any amount
    expect(isPixCopiaECola(staticCode(1000), 1000)).toBe(true);
    expect(isPixCopiaECola(staticCode(1000), 999)).toBe(false);
    expect(brCodeFields('')).toBeNull();
    expect(brCodeFields('6304ABCD')).toBeNull();
    // a valid CRC over a payload that is not TLV
    expect(brCodeFields(`hello6304${crc16('hello6304')}`)).toBeNull();
  });
});
