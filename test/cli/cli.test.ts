import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFeePlan } from '../../src/accounts/fee-plans.js';
import { verifyPassword } from '../../src/auth/passwords.js';
import { type Db, openDb } from '../../src/platform/db/db.js';
import { type CliResult, lines, runGateway } from '../support/cli.js';
import { feePlanBody } from '../support/operators.js';
import { admin, freshDatabase, urlFor } from '../support/pg.js';

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let env: Record<string, string>;

const gateway = (...args: string[]) => runGateway(args, env);
const ok = <T>(r: CliResult): T => {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as T;
};
/** A failure: the exit code, exactly one line on stderr, and with --json one JSON document on stdout. */
const fails = (r: CliResult, code: 1 | 2, pattern: RegExp) => {
  expect(r.code, `${r.stdout}${r.stderr}`).toBe(code);
  expect(lines(r.stderr)).toEqual([expect.stringMatching(pattern)]);
  expect(r.stderr).toMatch(/^error: /);
};
let seq = 0;
const email = () => `cli-${process.pid}-${++seq}@example.com`;

beforeAll(async () => {
  database = await freshDatabase();
  db = await openDb({ databaseUrl: database.url });
  env = { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-cli-')) };
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe('operator commands and the money secrets', () => {
  it('run in production without POSTBACK_SECRET and SECRETS_KEY, and never write dev secrets into DATA_DIR', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-cli-secrets-'));
    const production = { DATABASE_URL: database.url, DATA_DIR: dir, NODE_ENV: 'production', SANDBOX: 'off' };
    expect(ok<{ ok: boolean }>(await runGateway(['ledger', 'verify', '--json'], production)).ok).toBe(true);
    ok(
      await runGateway(
        ['accounts', 'create', '--name', 'Prod', '--email', email(), '--password', 'prod-password', '--json'],
        production,
      ),
    );
    ok(await gateway('ledger', 'verify', '--json')); // development: no dev secret files either
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(env.DATA_DIR!).filter((f) => f.startsWith('dev-'))).toEqual([]);
    // the long-running processes still refuse to start without them
    const serve = await runGateway(['serve'], production);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(/POSTBACK_SECRET is required in production/);
  });
});

describe('gateway migrate', () => {
  it('applies every migration to an empty database, then nothing', async () => {
    const name = `gw_cli_mig_${process.pid}`;
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    try {
      const blank = { ...env, DATABASE_URL: urlFor(name) };
      const first = ok<{ applied: string[] }>(await runGateway(['migrate', '--json'], blank));
      expect(first.applied).toContain('001_foundation');
      expect(ok<{ applied: string[] }>(await runGateway(['migrate', '--json'], blank))).toEqual({
        applied: [],
      });
      const text = await runGateway(['migrate'], blank);
      expect(text.code).toBe(0);
      expect(text.stdout).toBe('database is up to date\n');
    } finally {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });
});

describe('gateway accounts create', () => {
  it('creates an account with its panel user and prints {id, email, name}', async () => {
    const e = email();
    const out = ok<Record<string, unknown>>(
      await gateway(
        'accounts',
        'create',
        '--name',
        'Loja CLI',
        '--email',
        e,
        '--password',
        'cli-password',
        '--json',
      ),
    );
    expect(out).toEqual({ id: expect.any(Number), email: e, name: 'Loja CLI' });
    expect(Number.isInteger(out.id)).toBe(true);
    const [row] = await db.query<Record<string, unknown>>('SELECT * FROM accounts WHERE id = $1', [out.id]);
    expect(row).toMatchObject({
      cashout_fee_fixed: 0,
      cashout_fee_percent_e4: 0,
      sale_fee_fixed: 0,
      sale_fee_percent_e4: 0,
      reserve_percent_e4: 0,
      api_cashout_enabled: true,
      transfers_enabled: true,
    });
    const [owner] = await db.query<{ password_hash: string; role: string }>(
      'SELECT password_hash, role FROM users WHERE account_id = $1',
      [row!.id],
    );
    expect(owner!.role).toBe('owner');
    expect(String(owner!.password_hash)).toMatch(/^scrypt\$/);
    expect(String(owner!.password_hash)).not.toContain('cli-password');
    const text = await gateway(
      'accounts',
      'create',
      '--name',
      'Texto',
      '--email',
      email(),
      '--password',
      'cli-password',
    );
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^created account \d+ /);
  });

  it('exit 1 with one line for a duplicate email (any case), with a JSON error document under --json', async () => {
    const e = email();
    ok(
      await gateway(
        'accounts',
        'create',
        '--name',
        'A',
        '--email',
        e,
        '--password',
        'cli-password',
        '--json',
      ),
    );
    const dup = await gateway(
      'accounts',
      'create',
      '--name',
      'B',
      '--email',
      e.toUpperCase(),
      '--password',
      'cli-password',
    );
    fails(dup, 1, /already exists/);
    expect(dup.stdout).toBe('');
    const dupJson = await gateway(
      'accounts',
      'create',
      '--name',
      'B',
      '--email',
      e,
      '--password',
      'cli-password',
      '--json',
    );
    fails(dupJson, 1, /already exists/);
    expect(JSON.parse(dupJson.stdout)).toEqual({
      error: { exitCode: 1, message: expect.stringMatching(/already exists/) },
    });
  });

  it('FEE_PLAN_DEFAULT naming no plan refuses an active account (exit 1, nothing made); once the plan exists, the account is on it', async () => {
    const plan = `Padrão CLI ${process.pid}`;
    const withDefault = { ...env, FEE_PLAN_DEFAULT: plan };
    const address = email();
    const args = [
      'accounts',
      'create',
      '--name',
      'Loja',
      '--email',
      address,
      '--password',
      'uma-senha-longa',
    ];
    fails(await runGateway(args, withDefault), 1, /FEE_PLAN_DEFAULT names no fee plan/);
    expect(await db.query('SELECT 1 FROM accounts WHERE email = $1', [address])).toEqual([]);
    // the plan as the console makes it (by its module: this test has no console)
    const made = await createFeePlan(db, feePlanBody(plan));
    const account = ok<{ id: number }>(await runGateway([...args, '--json'], withDefault));
    const [row] = await db.query<{ fee_plan_id: string }>('SELECT fee_plan_id FROM accounts WHERE id = $1', [
      account.id,
    ]);
    expect(Number(row!.fee_plan_id)).toBe(made.id);
  });

  it('exit 2 for bad usage', async () => {
    fails(
      await gateway('accounts', 'create', '--name', 'A', '--email', email()),
      2,
      /--password is required/,
    );
    fails(
      await gateway('accounts', 'create', '--name', 'A', '--email', email(), '--password', 'p', '--bogus'),
      2,
      /bogus/,
    );
    // an option given twice is not the last one taken without a word
    fails(
      await gateway(
        'accounts',
        'create',
        '--name',
        'A',
        '--name',
        'B',
        '--email',
        email(),
        '--password',
        'pwpwpwpw',
      ),
      2,
      /--name is given more than once: give it once/,
    );
    fails(
      await gateway(
        'accounts',
        'create',
        'extra',
        '--name',
        'A',
        '--email',
        email(),
        '--password',
        'pwpwpwpw',
      ),
      2,
      /usage/,
    );
  });

  it('exit 2 for invalid values too, whichever check finds them, and plain words for a negative one', async () => {
    fails(
      await gateway(
        'accounts',
        'create',
        '--name',
        'A',
        '--email',
        'not-an-email',
        '--password',
        'cli-password',
      ),
      2,
      /email/,
    );
    fails(
      await gateway('accounts', 'create', '--name', 'A', '--email', email(), '--password', 'short'),
      2,
      /password/,
    );
    fails(
      await gateway('cashouts', 'stuck', '--minutes', '-5'),
      2,
      /--minutes needs a value, and negative values are not accepted/,
    );
  });
});

describe('gateway accounts update', () => {
  let id: number;
  beforeAll(async () => {
    id = ok<{ id: number }>(
      await gateway(
        'accounts',
        'create',
        '--name',
        'Upd',
        '--email',
        email(),
        '--password',
        'cli-password',
        '--json',
      ),
    ).id;
  });

  it('sets fees in integer cents and percentages, and the switches', async () => {
    const out = ok<Record<string, unknown>>(
      await gateway(
        'accounts',
        'update',
        '--id',
        String(id),
        '--cashout-fee-fixed',
        '1.50',
        '--cashout-fee-percent',
        '1.2',
        '--sale-fee-percent',
        '3.99',
        '--sale-fee-fixed',
        '0.99',
        '--reserve-percent',
        '10',
        '--card-fee-percent',
        '4.99',
        '--card-installment-fee-percent',
        '1.5',
        '--api-cashout',
        'off',
        '--transfers',
        'off',
        '--cart-recovery-email',
        'on',
        '--json',
      ),
    );
    expect(out).toEqual({
      id,
      name: 'Upd',
      email: expect.any(String),
      cashoutFeeFixed: '1.50',
      cashoutFeePercent: '1.2',
      saleFeePercent: '3.99',
      saleFeeFixed: '0.99',
      reservePercent: '10',
      cardFeePercent: '4.99',
      cardInstallmentFeePercent: '1.5',
      anticipationMonthlyPercent: '2.99',
      feePlanId: 'none',
      apiCashout: 'off',
      transfers: 'off',
      cartRecoveryEmail: 'on',
      twoFactor: 'off',
    });
    const [row] = await db.query<Record<string, unknown>>('SELECT * FROM accounts WHERE id = $1', [id]);
    expect(row).toMatchObject({
      cashout_fee_fixed: 150,
      cashout_fee_percent_e4: 12000,
      sale_fee_percent_e4: 39900,
      sale_fee_fixed: 99,
      reserve_percent_e4: 100000,
      card_fee_percent_e4: 49900,
      card_installment_fee_percent_e4: 15000,
      api_cashout_enabled: false,
      transfers_enabled: false,
      cart_recovery_email: true,
    });
    const back = ok<Record<string, unknown>>(
      await gateway('accounts', 'update', '--id', String(id), '--transfers', 'on', '--json'),
    );
    expect(back).toMatchObject({ transfers: 'on', apiCashout: 'off', cashoutFeeFixed: '1.50' });
  });

  it('accounts show prints what update set, without changing anything; exit 1 for an unknown id', async () => {
    const shown = ok<Record<string, unknown>>(
      await gateway('accounts', 'show', '--id', String(id), '--json'),
    );
    expect(shown).toMatchObject({
      id,
      name: 'Upd',
      cashoutFeeFixed: '1.50',
      transfers: 'on',
      twoFactor: 'off',
    });
    const text = await gateway('accounts', 'show', '--id', String(id));
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('"saleFeeFixed": "0.99"');
    fails(await gateway('accounts', 'show', '--id', '987654321'), 1, /no account with id 987654321/);
    fails(await gateway('accounts', 'show', '--id', 'abc'), 2, /--id/);
  });

  it('exit 1 for an unknown account id, exit 2 for bad values, nothing changed', async () => {
    fails(
      await gateway('accounts', 'update', '--id', '987654321', '--transfers', 'on'),
      1,
      /no account with id 987654321/,
    );
    for (const args of [
      ['--id', 'abc', '--transfers', 'on'],
      ['--transfers', 'on'],
      ['--id', String(id), '--transfers', 'maybe'],
      ['--id', String(id), '--cashout-fee-fixed', '1.505'],
      ['--id', String(id), '--cashout-fee-fixed', '-1'],
      ['--id', String(id), '--cashout-fee-percent', '101'],
      ['--id', String(id), '--sale-fee-percent', '1e2'],
    ]) {
      fails(await gateway('accounts', 'update', ...args), 2, /--/);
    }
    const [row] = await db.query<{ cashout_fee_fixed: number }>(
      'SELECT cashout_fee_fixed FROM accounts WHERE id = $1',
      [id],
    );
    expect(row!.cashout_fee_fixed).toBe(150);
  });
});

describe('gateway accounts update: an owner locked out', () => {
  it('sets a new password (ending every panel session and the login lock) and turns two-factor off, audited', async () => {
    const mail = email();
    const id = ok<{ id: number }>(
      await gateway(
        'accounts',
        'create',
        '--name',
        'Lost',
        '--email',
        mail,
        '--password',
        'old-password',
        '--json',
      ),
    ).id;
    await db.query(
      `UPDATE users SET totp_secret_enc = 'v1.x.y.z' WHERE account_id = $1;
       INSERT INTO panel_sessions (token_hash, account_id, user_id, csrf_token, expires_at)
       SELECT 'h-${process.pid}', $1, id, 'c', now() + interval '1 hour' FROM users WHERE account_id = $1;
       INSERT INTO login_failures (email, failures, window_started_at, locked_until)
       VALUES ($2, 5, now(), now() + interval '15 minutes')`
        .replace(/\$1/g, String(id))
        .replace('$2', `'${mail}'`),
    );
    // the password read from standard input (`--password -`): out of the process list and shell history
    const out = ok<Record<string, unknown>>(
      await runGateway(
        ['accounts', 'update', '--id', String(id), '--password', '-', '--two-factor', 'off', '--json'],
        env,
        60_000,
        'new-password\n',
      ),
    );
    expect(out).toMatchObject({ id, twoFactor: 'off' });
    expect(JSON.stringify(out)).not.toContain('new-password');
    const [row] = await db.query<{ password_hash: string; totp_secret_enc: string | null }>(
      'SELECT password_hash, totp_secret_enc FROM users WHERE account_id = $1',
      [id],
    );
    expect(await verifyPassword('new-password', row!.password_hash)).toBe(true);
    expect(await verifyPassword('old-password', row!.password_hash)).toBe(false);
    expect(row!.totp_secret_enc).toBeNull();
    expect(await db.query('SELECT 1 FROM panel_sessions WHERE account_id = $1', [id])).toEqual([]);
    expect(await db.query('SELECT 1 FROM login_failures WHERE email = $1', [mail])).toEqual([]);
    const audit = await db.query<{ action: string; actor_type: string }>(
      'SELECT action, actor_type FROM audit_log WHERE account_id = $1 ORDER BY id',
      [id],
    );
    expect(audit).toEqual([
      { action: 'account.updated', actor_type: 'operator' },
      { action: 'totp.disabled', actor_type: 'operator' },
    ]);
    // again, two-factor already off: nothing turned off, nothing said to have been
    ok(await runGateway(['accounts', 'update', '--id', String(id), '--two-factor', 'off', '--json'], env));
    const again = await db.query<{ action: string }>(
      'SELECT action FROM audit_log WHERE account_id = $1 ORDER BY id',
      [id],
    );
    expect(again.map((a) => a.action)).toEqual(['account.updated', 'totp.disabled', 'account.updated']);
    fails(
      await gateway('accounts', 'update', '--id', String(id), '--two-factor', 'on'),
      2,
      /--two-factor takes only off/,
    );
    fails(await gateway('accounts', 'update', '--id', String(id), '--password', 'short'), 2, /at least 8/);
    fails(
      await gateway('accounts', 'update', '--id', String(id), '--password', '        '),
      2,
      /only spaces/,
    );
  });
});

describe('gateway notifications prune', () => {
  it('drops the months of history past the days given and says which; exit 2 for a bad number of days', async () => {
    const out = ok<{ before: string; dropped: unknown[]; kept: unknown[] }>(
      await gateway('notifications', 'prune', '--older-than-days', '30', '--json'),
    );
    expect(out).toMatchObject({ dropped: expect.any(Array), kept: expect.any(Array) });
    expect(Date.now() - Date.parse(out.before)).toBeGreaterThanOrEqual(30 * 86_400_000);
    for (const days of ['0', '-1', 'abc', '1.5']) {
      fails(await gateway('notifications', 'prune', '--older-than-days', days), 2, /--older-than-days/);
    }
    fails(await gateway('notifications', 'prune'), 2, /--older-than-days/);
  });
});

describe('gateway settings set api-withdrawals', () => {
  const stored = async () =>
    (await db.query<{ value: string }>(`SELECT value FROM settings WHERE key = 'api_withdrawals'`))[0]?.value;

  it('turns the global switch off and on', async () => {
    expect(ok(await gateway('settings', 'set', 'api-withdrawals', 'off', '--json'))).toEqual({
      setting: 'api-withdrawals',
      value: 'off',
    });
    expect(await stored()).toBe('off');
    const on = await gateway('settings', 'set', 'api-withdrawals', 'on');
    expect(on.code).toBe(0);
    expect(on.stdout).toBe('api-withdrawals is on\n');
    expect(await stored()).toBe('on');
  });

  it('exit 2 for an unknown setting or value', async () => {
    fails(await gateway('settings', 'set', 'api-withdrawals', 'maybe'), 2, /on or off/);
    fails(await gateway('settings', 'set', 'everything', 'on'), 2, /unknown setting/);
    fails(await gateway('settings', 'set', 'api-withdrawals'), 2, /usage/);
    expect(await stored()).toBe('on');
  });
});

describe('the command line itself', () => {
  it('exit 2 with one line for no or an unknown command; --help prints the usage', async () => {
    fails(await gateway(), 2, /no command/);
    fails(await gateway('frobnicate'), 2, /unknown command/);
    // a mistyped command is named without its options: a password given with it is not echoed
    const typo = await gateway('acounts', 'create', '--password', 'segredo-do-dono');
    fails(typo, 2, /unknown command "acounts create"/);
    expect(typo.stderr).not.toContain('segredo-do-dono');
    const unknownJson = await gateway('frobnicate', '--json');
    expect(JSON.parse(unknownJson.stdout)).toMatchObject({ error: { exitCode: 2 } });
    const help = await gateway('--help');
    expect(help.code).toBe(0);
    for (const cmd of [
      'serve',
      'worker',
      'dev-psp',
      'migrate',
      'accounts create',
      'accounts show',
      'accounts update',
      'settings set',
      'notifications prune',
    ]) {
      expect(help.stdout).toContain(`gateway ${cmd}`);
    }
    // --help alone prints the usage of all; after a command, that command's own help; it runs nothing
    // (dev-psp would start a server)
    for (const argv of [['-h'], ['help'], ['frobnicate', '--help']]) {
      const r = await gateway(...argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.stdout).toBe(help.stdout);
    }
    const seen = new Set<string>();
    const usages = help.stdout
      .split('\n')
      .filter((l) => l.startsWith('  gateway '))
      .map((l) => l.trim());
    // each command's own help, four processes at a time
    const limit = pLimit(4);
    const answers = await Promise.all(
      usages.map((usage) => {
        const words = usage.split(' ').slice(1);
        const path = words.slice(
          0,
          words.findIndex(
            (w) => w.startsWith('-') || w.startsWith('[') || /^[A-Z]/.test(w) || w.includes('|'),
          ) >>> 0,
        );
        return limit(() => gateway(...path, '--help'));
      }),
    );
    for (const [i, usage] of usages.entries()) {
      const r = answers[i]!;
      expect(r.code, usage).toBe(0);
      expect(r.stdout, usage).toContain(`usage: ${usage}`);
      expect(r.stdout, usage).toMatch(/\nexample:\n {2}.*gateway /);
      expect(r.stdout, usage).not.toBe(help.stdout);
      seen.add(r.stdout);
    }
    expect(seen.size).toBeGreaterThanOrEqual(13);
    fails(await gateway('dev-psp', '--bogus'), 2, /usage: gateway dev-psp \[--port N\]/);
    fails(await gateway('dev-psp', '--port'), 2, /usage: gateway dev-psp/);
  });

  it('exit 1 with one line when the database is unreachable', async () => {
    const r = await runGateway(
      ['accounts', 'create', '--name', 'A', '--email', email(), '--password', 'cli-password'],
      {
        ...env,
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
      },
    );
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
  });
});
