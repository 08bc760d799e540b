import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { TestServer } from '../support/server.js';

/** A Luhn-valid number: `prefix`, random digits, the check digit; `length` digits in all. */
export function cardNumber(prefix: string, length = 16): string {
  let body = prefix;
  while (body.length < length - 1) body += String(Math.floor(Math.random() * 10));
  for (let d = 0; d <= 9; d++) {
    const candidate = `${body}${d}`;
    if (luhn(candidate)) return candidate;
  }
  throw new Error('unreachable');
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A Luhn-valid number whose last digit asks the sandbox acquirer for an outcome (decisions.md, "Cards"). */
export function cardEnding(digit: string, prefix = '4'): string {
  for (;;) {
    const n = cardNumber(prefix);
    if (n.endsWith(digit)) return n;
  }
}

/** The same number with its check digit off by one: fails Luhn. */
export const badCheckDigit = (n: string) => `${n.slice(0, -1)}${(Number(n.slice(-1)) + 1) % 10}`;

export const nextYear = () => new Date().getUTCFullYear() + 1;

export const cardBody = (number: string, extra: Record<string, unknown> = {}) => ({
  number,
  holderName: 'MARIA SILVA',
  expMonth: 12,
  expYear: nextYear(),
  cvv: '731',
  ...extra,
});

/** Every line the server logs, at every level it writes (tests set LOG_LEVEL=debug), kept to search. */
export function captureLogs(server: TestServer): () => string {
  let text = '';
  const write = server.logs.write.bind(server.logs);
  server.logs.write = (chunk: string | Buffer) => {
    text += chunk.toString();
    write(chunk);
  };
  return () => text;
}

const PG_DUMP = existsSync('/usr/lib/postgresql/15/bin/pg_dump')
  ? '/usr/lib/postgresql/15/bin/pg_dump'
  : 'pg_dump';

/** The test database's rows, every table, as `pg_dump --data-only` writes them. */
export async function dumpData(databaseUrl: string): Promise<string> {
  const { stdout } = await promisify(execFile)(PG_DUMP, ['--data-only', '--dbname', databaseUrl], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/**
 * Neither the database nor the logs hold a card number used (as sent, or as digits only) or a CVV given as a
 * value: CVVs are three or four digits, found in any dump as parts of times and ids, so they are searched as
 * the values of a field or as quoted strings.
 */
export function expectNoCardData(where: string, text: string, numbers: string[], cvvs: string[]): void {
  expect(text.length, where).toBeGreaterThan(0);
  for (const n of numbers) {
    expect(text.includes(n), `${where} holds a card number`).toBe(false);
    expect(text.includes(n.replace(/\D/g, '')), `${where} holds a card number`).toBe(false);
  }
  for (const cvv of cvvs) {
    expect(new RegExp(`cvv\\W{0,6}${cvv}`, 'i').test(text), `${where} holds a CVV`).toBe(false);
    expect(text.includes(`"${cvv}"`), `${where} holds a CVV as a string`).toBe(false);
  }
}

/** The local acquirer's CA in a file, for CIELO_CA_FILE (the gateway trusts the local acquirer's TLS by it). */
export function caFileOf(acquirer: { ca: string }): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gw-acquirer-ca-')), 'ca.pem');
  writeFileSync(file, acquirer.ca);
  return file;
}

/** What points a gateway at a local acquirer (CARD_ACQUIRER=cielo over its TLS), with `extra` settings. */
export function cieloEnv(
  acquirer: { merchantId: string; merchantKey: string; url: string; ca: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    CARD_ACQUIRER: 'cielo',
    CIELO_MERCHANT_ID: acquirer.merchantId,
    CIELO_MERCHANT_KEY: acquirer.merchantKey,
    CIELO_API_URL: acquirer.url,
    CIELO_QUERY_URL: acquirer.url,
    CIELO_CA_FILE: caFileOf(acquirer),
    ...extra,
  };
}
