import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lines, runGateway } from '../../support/cli.js';

const KEY = randomBytes(32).toString('base64');
const PB = randomBytes(32).toString('base64');

/** Each bad value stops `gateway serve` at start: non-zero exit, one stderr line naming the setting. */
const CASES: Array<[string, Record<string, string>, RegExp]> = [
  ['PORT not a number', { PORT: 'abc' }, /PORT/],
  ['PORT out of range', { PORT: '70000' }, /PORT/],
  ['production without POSTBACK_SECRET', { NODE_ENV: 'production', SECRETS_KEY: KEY }, /POSTBACK_SECRET/],
  ['production without SECRETS_KEY', { NODE_ENV: 'production', POSTBACK_SECRET: 'p' }, /SECRETS_KEY/],
  ['SECRETS_KEY not 32 bytes', { SECRETS_KEY: Buffer.alloc(16).toString('base64') }, /SECRETS_KEY/],
  ['SECRETS_KEY not base64', { SECRETS_KEY: 'not base64 at all!' }, /SECRETS_KEY/],
  ['WEBHOOK_RETRY_DELAYS_MS not numbers', { WEBHOOK_RETRY_DELAYS_MS: 'x' }, /WEBHOOK_RETRY_DELAYS_MS/],
  ['WEBHOOK_RETRY_DELAYS_MS one value', { WEBHOOK_RETRY_DELAYS_MS: '1000' }, /WEBHOOK_RETRY_DELAYS_MS/],
  ['WEBHOOK_TIMEOUT_MS zero', { WEBHOOK_TIMEOUT_MS: '0' }, /WEBHOOK_TIMEOUT_MS/],
  ['TRUST_PROXY nonsense', { TRUST_PROXY: 'nonsense' }, /TRUST_PROXY/],
  ['TRUST_PROXY bad CIDR', { TRUST_PROXY: '10.0.0.0/99' }, /TRUST_PROXY/],
  ['SANDBOX not on/off', { SANDBOX: 'maybe' }, /SANDBOX/],
  [
    'SANDBOX on in production',
    { NODE_ENV: 'production', POSTBACK_SECRET: PB, SECRETS_KEY: KEY, SANDBOX: 'on' },
    /SANDBOX/,
  ],
  [
    'PIX_PROCESSOR=sandbox in production',
    {
      NODE_ENV: 'production',
      POSTBACK_SECRET: KEY,
      SECRETS_KEY: KEY,
      SANDBOX: 'off',
      PIX_PROCESSOR: 'sandbox',
    },
    /PIX_PROCESSOR/,
  ],
  ['PIX_PROCESSOR unknown', { PIX_PROCESSOR: 'acme' }, /PIX_PROCESSOR must be one of/],
  [
    'PAYOUT_PROVIDER=sandbox in production',
    { NODE_ENV: 'production', POSTBACK_SECRET: KEY, SECRETS_KEY: KEY, PAYOUT_PROVIDER: 'sandbox' },
    /PAYOUT_PROVIDER=sandbox cannot be chosen in production/,
  ],
  [
    'PAYOUT_PROVIDER=efi without its PSP',
    { PAYOUT_PROVIDER: 'efi' },
    /PAYOUT_PROVIDER=efi needs PIX_API_URL/,
  ],
  ['PAYOUT_PROVIDER unknown', { PAYOUT_PROVIDER: 'acme' }, /PAYOUT_PROVIDER must be one of/],
  [
    'WEBHOOK_ALLOW_PRIVATE on in production',
    { NODE_ENV: 'production', POSTBACK_SECRET: PB, SECRETS_KEY: KEY, WEBHOOK_ALLOW_PRIVATE: 'true' },
    /WEBHOOK_ALLOW_PRIVATE/,
  ],
  [
    'POSTBACK_SECRET short in production',
    { NODE_ENV: 'production', POSTBACK_SECRET: 'p', SECRETS_KEY: KEY },
    /POSTBACK_SECRET.*32 bytes/,
  ],
  [
    'POSTBACK_SECRET repetitive in production',
    { NODE_ENV: 'production', POSTBACK_SECRET: 'a'.repeat(200), SECRETS_KEY: KEY },
    /POSTBACK_SECRET/,
  ],
  [
    'SECRETS_KEY not random in production',
    { NODE_ENV: 'production', POSTBACK_SECRET: PB, SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') },
    /SECRETS_KEY/,
  ],
  ['NODE_ENV unknown', { NODE_ENV: 'staging' }, /NODE_ENV/],
  ['DATABASE_URL not postgres', { DATABASE_URL: 'mysql://localhost/db' }, /DATABASE_URL/],
  [
    'DATABASE_URL asking for a standby',
    { DATABASE_URL: 'postgres://u@h1:5432,h2:5433/db?target_session_attrs=standby' },
    /DATABASE_URL: target_session_attrs must be read-write or primary/,
  ],
  [
    'DATABASE_URL with a bad host list',
    { DATABASE_URL: 'postgres://u@h1:x,h2/db' },
    /DATABASE_URL: bad host/,
  ],
  [
    'DATABASE_READ_URL without DATABASE_URL',
    { DATABASE_READ_URL: 'postgres://u@h3/db' },
    /DATABASE_READ_URL/,
  ],
  [
    'DATABASE_DIRECT_URL without DATABASE_URL',
    { DATABASE_DIRECT_URL: 'postgres://u@h1/db' },
    /DATABASE_DIRECT_URL needs DATABASE_URL/,
  ],
  [
    'DATABASE_DIRECT_URL asking for a standby',
    {
      DATABASE_URL: 'postgres://u@pooler:6432/db',
      DATABASE_DIRECT_URL: 'postgres://u@h1,h2/db?target_session_attrs=standby',
    },
    /DATABASE_DIRECT_URL: target_session_attrs must be read-write or primary/,
  ],
  ['DB_FAILOVER_TIMEOUT_MS not a number', { DB_FAILOVER_TIMEOUT_MS: 'soon' }, /DB_FAILOVER_TIMEOUT_MS/],
  ['HOST not an address', { HOST: 'not a host' }, /HOST/],
  ['REDIS_URL not a redis URL', { REDIS_URL: 'localhost:6379' }, /REDIS_URL/],
  ['LOG_LEVEL unknown', { LOG_LEVEL: 'verbose' }, /LOG_LEVEL must be one of/],
  ['PUBLIC_URL not a URL', { PUBLIC_URL: 'notaurl' }, /PUBLIC_URL must be an http/],
  [
    'PUBLIC_URL with a path',
    { PUBLIC_URL: 'http://x.com/path?q=1' },
    /PUBLIC_URL must be the gateway's origin/,
  ],
  ['PUBLIC_URL with a query', { PUBLIC_URL: 'https://x.com?q=1' }, /PUBLIC_URL must be the gateway's origin/],
];

describe('settings are validated at start', () => {
  it.each(CASES)('%s', async (_what, env, names) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-config-'));
    const res = await runGateway(['serve'], { DATA_DIR: dataDir, PORT: '0', ...env });
    expect(res.code, res.stderr).toBe(1);
    expect(lines(res.stderr)).toHaveLength(1);
    expect(res.stderr).toMatch(names);
    expect(res.stderr).toMatch(/^error: invalid configuration: /);
    expect(res.stdout).not.toContain('gateway listening');
  });

  it('applies to `gateway worker` and operator commands too', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-config-'));
    for (const args of [['worker'], ['migrate']]) {
      const res = await runGateway(args, { DATA_DIR: dataDir, TRUST_PROXY: 'nonsense' });
      expect(res.code).toBe(1);
      expect(lines(res.stderr)).toEqual([expect.stringMatching(/TRUST_PROXY/)]);
    }
  });
});
