import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { checkUsage, helpFor } from '../../src/cli/execute.js';
import { type DevAcquirer, runDevAcquirer } from '../../src/devacquirer/index.js';
import { call } from '../support/http.js';
import { cardNumber } from './cards.js';

let acquirer: DevAcquirer | undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-dev-acquirer-'));
afterAll(async () => {
  await acquirer?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('gateway dev-acquirer', () => {
  it('is a command with its usage; a bad option is exit 2', () => {
    expect(helpFor(['dev-acquirer'])).toContain('usage: gateway dev-acquirer [--port N]');
    expect(checkUsage(['dev-acquirer'])).toBeNull();
    expect(checkUsage(['dev-acquirer', '--port', '0'])).toBeNull();
    expect(
      checkUsage([
        'dev-acquirer',
        '--notification-url',
        'http://127.0.0.1:3000/x',
        '--notification-secret',
        's',
      ]),
    ).toBeNull();
    expect(checkUsage(['dev-acquirer', '--notification-url'])).toMatchObject({ exitCode: 2 });
    expect(checkUsage(['dev-acquirer', '--bogus'])).toMatchObject({ exitCode: 2 });
    expect(checkUsage(['dev-acquirer', '--port'])?.stderr).toMatch(
      /usage: gateway dev-acquirer \[--port N\]/,
    );
  });

  it('prints the settings that point a gateway at it, and speaks Cielo’s POST /1/card and GET /1/card/{token}', async () => {
    const printed: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      acquirer = await runDevAcquirer(['--port', '0'], dataDir);
    } finally {
      spy.mockRestore();
    }
    const out = printed.join('');
    const setting = (name: string) => new RegExp(`^${name}=(.+)$`, 'm').exec(out)?.[1];
    expect(setting('CARD_ACQUIRER')).toBe('cielo');
    expect(setting('CIELO_API_URL')).toBe(acquirer.url);
    // under DATA_DIR, as dev-psp's certificates: nothing left in the system's temporary folder
    expect(setting('CIELO_CA_FILE')).toBe(path.join(dataDir, 'dev-acquirer', 'ca.pem'));
    expect(readFileSync(setting('CIELO_CA_FILE')!, 'utf8')).toBe(acquirer.ca);
    expect(acquirer.url).toMatch(/^https:\/\//);
    const merchant = {
      MerchantId: setting('CIELO_MERCHANT_ID')!,
      MerchantKey: setting('CIELO_MERCHANT_KEY')!,
    };
    const ca = acquirer.ca;
    const number = cardNumber('4');
    const card = {
      CustomerName: 'Maria Silva',
      CardNumber: number,
      Holder: 'MARIA SILVA',
      ExpirationDate: '12/2030',
      Brand: 'Visa',
    };
    const wrong = await call('POST', `${acquirer.url}/1/card`, {
      headers: { ...merchant, MerchantKey: 'nope' },
      body: card,
      ca,
    });
    expect(wrong.status).toBe(401);
    const bad = await call<{ Code: number }[]>('POST', `${acquirer.url}/1/card`, {
      headers: merchant,
      body: { ...card, ExpirationDate: '13/2030', Brand: 'Nope' },
      ca,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.map((e) => e.Code)).toEqual([126, 128]);
    const made = await call<{ CardToken: string; Links: { Href: string } }>(
      'POST',
      `${acquirer.url}/1/card`,
      {
        headers: merchant,
        body: card,
        ca,
      },
    );
    expect(made.status, made.text).toBe(201);
    expect(made.body.CardToken).toMatch(/^[0-9a-f-]{36}$/);
    const shown = await call('GET', made.body.Links.Href, { headers: merchant, ca });
    expect(shown.body).toEqual({
      CardNumber: `************${number.slice(-4)}`,
      Holder: 'MARIA SILVA',
      ExpirationDate: '12/2030',
      Brand: 'Visa',
    });
    expect(JSON.stringify([...acquirer.cards.values()])).not.toContain(number);
  });
});
