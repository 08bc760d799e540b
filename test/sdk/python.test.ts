/**
 * The Python SDK (sdk-python/) against a real gateway: this file starts the gateway, prepares what its tests need
 * (merchants, funds, a real signed webhook delivery, the TypeScript SDK's verdicts on webhook inputs) in a
 * fixture file, and runs the Python tests (`python3 -m unittest`, sdk-python/tests) against it. It also fails
 * when sdk-python/gateway_sdk/types.py differs from what the generator makes of the gateway's /openapi.json.
 * PYTHON names the interpreter (default python3; the SDK supports 3.10 and later).
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src/index.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { type Received, type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

const PYTHON = process.env.PYTHON || 'python3';
const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'sdk-python');
const TYPES_PY = path.join(SDK, 'gateway_sdk', 'types.py');
const GENERATOR = path.join(SDK, 'tools', 'generate_types.py');

let server: TestServer;
let receiver: Receiver;
let dir: string;
let fixtureFile: string;
const merchants: Record<string, TestMerchant> = {};

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process without blocking this one (the gateway it talks to runs here). */
function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string },
) {
  return new Promise<Ran>((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // a command that never reads its input (tar) may exit first: EPIPE then says nothing about it
    child.stdin.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') reject(err);
    });
    child.stdin.end(options.input ?? '');
  });
}

/** One module of sdk-python/tests, every test of it run and passed (none skipped). */
async function unittest(module: string): Promise<string> {
  const env = { ...process.env, GATEWAY_SDK_FIXTURE: fixtureFile, PYTHONDONTWRITEBYTECODE: '1' };
  const ran = await run(PYTHON, ['-m', 'unittest', '-v', module], { cwd: SDK, env });
  expect(ran.code, `${ran.stdout}${ran.stderr}`).toBe(0);
  expect(ran.stderr).toMatch(/^Ran [1-9]\d* tests? in/m);
  expect(ran.stderr).toMatch(/^OK$/m); // "OK (skipped=…)" when a test did not run
  return ran.stderr;
}

const sign = (secret: string, text: Buffer) => createHmac('sha256', secret).update(text).digest('hex');
const signStandard = (secret: string, text: Buffer) =>
  createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(text)
    .digest('base64');

/** Headers as the gateway signs body at ts (the TypeScript SDK is the judge of what verifies). */
function signed(body: Buffer, secret: string, id: string, ts: number): Record<string, string> {
  return {
    'x-service-signature': `sha256=${sign(secret, Buffer.concat([Buffer.from(`${ts}.`), body]))}`,
    'x-service-timestamp': String(ts),
    'x-service-event-id': id,
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': `v1,${signStandard(secret, Buffer.concat([Buffer.from(`${id}.${ts}.`), body]))}`,
  };
}

interface VerifyCase {
  name: string;
  body: Buffer;
  headers: Record<string, string | string[]>;
  secret: string | string[];
  toleranceSeconds?: number;
}

/** Webhook inputs around the real delivery, each with what the TypeScript SDK's verifyWebhook makes of it. */
function verifyCases(got: Received, secret: string) {
  const body = got.body;
  const real = Object.fromEntries(
    Object.entries(got.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const id = real['webhook-id']!;
  const now = Math.floor(Date.now() / 1000);
  const without = (name: string) => Object.fromEntries(Object.entries(real).filter(([k]) => k !== name));
  const vectors = JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'vectors.json'), 'utf8'));
  const vs = vectors.webhookSignature;
  const vsw = vectors.standardWebhooks;
  const test = Buffer.from('{"type":"TEST","message":"a test from the panel","eventType":"webhook.test"}');
  const withdrawal = Buffer.from(
    '{"id":7,"uuid":"u","type":"WITHDRAWAL","status":"COMPLETED","amount":"150.00","eventType":"withdrawal.completed"}',
  );
  // a partial refund: the sale is still PAGO, the event is the body's eventType
  const partialRefund = Buffer.from(
    '{"id":8,"type":"TRANSACTION","status":"PAGO","refundedAmount":"2000","eventType":"sale.refunded"}',
  );
  const noEventType = Buffer.from('{"id":8,"type":"TRANSACTION","status":"PAGO"}');
  const unknownKind = Buffer.from('{"type":"SUBSCRIPTION","status":"ACTIVE"}');
  const notJson = Buffer.from('{"type": "TEST",');
  const nan = Buffer.from('NaN');
  const badUtf8 = Buffer.concat([
    Buffer.from('{"type":"TEST","x":"'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"}'),
  ]);
  const padded = signed(body, secret, id, now);
  padded['x-service-timestamp'] = `00${now}`;
  padded['webhook-timestamp'] = `0${now}`;
  const xSig = real['x-service-signature']!;
  const wSig = real['webhook-signature']!;
  // the real delivery with some headers changed, or another body signed now (or at ts) with the real secret
  const re = (name: string, patch: Record<string, string | string[]>, extra: Partial<VerifyCase> = {}) => ({
    name,
    body,
    headers: { ...real, ...patch },
    secret,
    ...extra,
  });
  const other = (name: string, b: Buffer, id2: string, patch: Record<string, string> = {}) => ({
    name,
    body: b,
    headers: { ...signed(b, secret, id2, now), ...patch },
    secret,
  });
  const at = (name: string, ts: number, extra: Partial<VerifyCase> = {}) => ({
    name,
    body,
    headers: signed(body, secret, id, ts),
    secret,
    ...extra,
  });
  const capitals = Object.fromEntries(Object.entries(real).map(([k, v]) => [k.toUpperCase(), v]));
  const cases: VerifyCase[] = [
    re('the real delivery', {}),
    re('a rotation: the old secret first', {}, { secret: ['whsec_AAAA', secret] }),
    { name: 'header names in capitals', body, headers: capitals, secret },
    re('a list header: its first value', { 'x-service-signature': [xSig, 'sha256=00'] }),
    re('a tampered body', {}, { body: Buffer.from(body.toString('utf8').replace('"PAGO"', '"ESTORNADO"')) }),
    re('a wrong secret', {}, { secret: 'whsec_AAAA' }),
    re('the secret without whsec_', {}, { secret: secret.replace(/^whsec_/, '') }),
    re('relabelled', { 'x-service-event-type': 'sale.refunded' }),
    re('another event id claimed', { 'x-service-event-id': 'evt_other' }),
    { name: 'no webhook-signature', body, headers: without('webhook-signature'), secret },
    re('an empty webhook-id', { 'webhook-id': '' }),
    { name: 'no X-Service-Signature', body, headers: without('x-service-signature'), secret },
    {
      name: 'only X-Service-Signature-Next',
      body,
      headers: { ...without('x-service-signature'), 'x-service-signature-next': xSig },
      secret,
    },
    re('an empty X-Service-Signature', { 'x-service-signature': '' }),
    re('the hex in capitals', { 'x-service-signature': xSig.toUpperCase() }),
    re('no sha256= prefix', { 'x-service-signature': xSig.slice(7) }),
    re('a malformed timestamp', { 'x-service-timestamp': `${real['x-service-timestamp']}a` }),
    re('a negative timestamp', { 'x-service-timestamp': `-${real['x-service-timestamp']}` }),
    re('a 13-digit timestamp', { 'webhook-timestamp': `000${real['webhook-timestamp']}` }),
    { name: 'no webhook-timestamp', body, headers: without('webhook-timestamp'), secret },
    { name: 'timestamps with leading zeros', body, headers: padded, secret },
    re('a v2 and a wrong v1 before the right v1', { 'webhook-signature': `v2,abc v1,AAAA ${wSig}` }),
    re('a v1 entry with no signature', { 'webhook-signature': 'v1' }),
    re('the standard signature as v2', { 'webhook-signature': wSig.replace(/^v1,/, 'v2,') }),
    at('signed an hour ago', now - 3600),
    at('signed an hour ago, a two-hour window', now - 3600, { toleranceSeconds: 7200 }),
    at('signed an hour ahead', now + 3600),
    {
      name: "the spec's vectors",
      body: Buffer.from(vs.rawBody),
      headers: {
        'x-service-signature': vs['X-Service-Signature'],
        'x-service-timestamp': vs.timestamp,
        'webhook-id': vsw['webhook-id'],
        'webhook-timestamp': vsw['webhook-timestamp'],
        'webhook-signature': vsw['webhook-signature'],
      },
      secret: vs.secret,
      toleranceSeconds: 10 ** 10,
    },
    other('a test delivery', test, 'evt_test'),
    other('a withdrawal', withdrawal, 'evt_w', { 'x-service-event-type': 'withdrawal.completed' }),
    other('a withdrawal relabelled', withdrawal, 'evt_w', { 'x-service-event-type': 'withdrawal.rejected' }),
    other('a partial refund', partialRefund, 'evt_r', { 'x-service-event-type': 'sale.refunded' }),
    other('a partial refund relabelled', partialRefund, 'evt_r', { 'x-service-event-type': 'sale.paid' }),
    other('a body stating no eventType: no type, never one from its status', noEventType, 'evt_s', {
      'x-service-event-type': 'sale.paid',
    }),
    other('a kind it does not know, any label', unknownKind, 'evt_u', {
      'x-service-event-type': 'sale.paid',
    }),
    other('a body that is not JSON', notJson, 'evt_j'),
    other('NaN', nan, 'evt_n'),
    other('bytes that are not UTF-8', badUtf8, 'evt_b'),
  ];
  return cases.map((c) => {
    let expected: Record<string, unknown>;
    try {
      const v = verifyWebhook({
        body: c.body,
        headers: c.headers,
        secret: c.secret,
        ...(c.toleranceSeconds !== undefined ? { toleranceSeconds: c.toleranceSeconds } : {}),
      });
      expected = { eventId: v.eventId, eventType: v.eventType, timestamp: v.timestamp, payload: v.payload };
    } catch (err) {
      expected = { error: (err as Error).message };
    }
    const { body: raw, ...rest } = c;
    return { ...rest, bodyBase64: raw.toString('base64'), expected };
  });
}

beforeAll(async () => {
  server = await startServer();
  receiver = await startReceiver();
  for (const name of [
    'funded',
    'decimals',
    'charges',
    'refunds',
    'retry',
    'retry503',
    'empty',
    'hooks',
    'checkout',
    'integrators',
    'split',
    'subscriptions',
  ]) {
    merchants[name] = await createMerchant(server, `Python ${name}`);
  }
  for (const name of ['funded', 'decimals', 'retry', 'retry503']) {
    await fundMerchant(server.runtime.platform.db, merchants[name]!.accountId, 50_000);
  }
  const hooks = merchants.hooks!;
  const hook = await createWebhook(server, hooks, `${receiver.url}/py-${hooks.accountId}`, ['sale.paid']);
  const sale = await call<{ id: number }>('POST', `${server.url}/api/transactions`, {
    headers: hooks.keys,
    body: saleInput(),
  });
  expect(sale.status, sale.text).toBe(201);
  expect((await moveTo(server, hooks, sale.body.id, 'PAGO')).status).toBe(200);
  const got = await waitUntil(
    () => receiver.received.find((r) => r.path === `/py-${hooks.accountId}`),
    30_000,
    () => 'the sale.paid delivery',
  );
  const cases = verifyCases(got, hook.secret);
  expect(cases.filter((c) => 'error' in c.expected).length).toBeGreaterThan(10);
  expect(cases.filter((c) => !('error' in c.expected)).length).toBeGreaterThan(10);

  dir = mkdtempSync(path.join(tmpdir(), 'python-sdk-'));
  fixtureFile = path.join(dir, 'fixture.json');
  writeFileSync(
    fixtureFile,
    JSON.stringify({
      gatewayUrl: server.url,
      merchants: Object.fromEntries(
        Object.entries(merchants).map(([name, m]) => [
          name,
          { publicKey: m.publicKey, privateKey: m.privateKey, accountId: m.accountId },
        ]),
      ),
      delivery: {
        bodyBase64: got.body.toString('base64'),
        headers: got.headers,
        secret: hook.secret,
        saleId: sale.body.id,
      },
      verifyCases: cases,
    }),
  );
});

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await receiver?.close();
  await server?.close();
});

const withdrawalsOf = async (m: TestMerchant) =>
  (
    await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
      [m.accountId],
    )
  )[0]!.n;

describe('the Python SDK against a real gateway', () => {
  it('reads the balance, creates and retrieves cashouts and charges, refunds one, and pages through events', async () => {
    await unittest('tests.test_client');
  });

  it('retries with one Idempotency-Key per call: a lost answer or a 503 still makes one withdrawal', async () => {
    await unittest('tests.test_retries');
    expect(await withdrawalsOf(merchants.retry!)).toBe(1);
    expect(await withdrawalsOf(merchants.retry503!)).toBe(1);
    expect(await withdrawalsOf(merchants.empty!)).toBe(0);
  });

  it('raises typed errors for 400, 401, 404 and 422, whichever the body shape', async () => {
    await unittest('tests.test_errors');
  });

  it('verifies a real delivery with verify_webhook and refuses what the TypeScript SDK refuses', async () => {
    const out = await unittest('tests.test_webhooks');
    expect(out).toMatch(/test_the_same_verdicts_as_the_typescript_sdk .* ok$/m);
  });

  it("runs its README's example against the gateway; every Python snippet of the docs compiles", async () => {
    const readme = readFileSync(path.join(SDK, 'README.md'), 'utf8');
    const snippets = (file: string) =>
      [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^```python\n([\s\S]*?)^```$/gm)].map(
        (m) => m[1]!,
      );
    const example = snippets('sdk-python/README.md').find((code) => code.includes('gw.transactions.create'));
    expect(example).toBeDefined();
    const m = await createMerchant(server, 'Python README');
    const ran = await run(PYTHON, ['-c', example!], {
      cwd: SDK,
      env: {
        ...process.env,
        GATEWAY_URL: server.url,
        GATEWAY_PUBLIC_KEY: m.publicKey,
        GATEWAY_PRIVATE_KEY: m.privateKey,
        PYTHONDONTWRITEBYTECODE: '1',
      },
    });
    expect(ran.code, ran.stderr).toBe(0);
    const lines = ran.stdout.trim().split('\n');
    expect(lines[0]).toBe("{'available': 0, 'blocked': 0, 'total': 0, 'receivable': 0}");
    expect(lines[1]).toMatch(/^[0-9a-f-]{36} PENDENTE 000201/); // the charge and its PIX copy-and-paste code
    expect(lines[2]).toMatch(/^INSUFFICIENT_BALANCE /); // the cashout, on an empty balance
    expect(readme).toContain('pip install ./sdk-python');
    const all = ['sdk-python/README.md', 'README.md', 'docs/webhooks.md'].flatMap(snippets);
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const code of all) {
      const parsed = await run(PYTHON, ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], {
        input: code,
      });
      expect(parsed.code, `${parsed.stderr}\n${code}`).toBe(0);
    }
  });

  // the Python types come from the same document as sdk/src/openapi.ts; changed routes need `npm run sdk:types`
  it("has the types generate_types.py makes of the gateway's /openapi.json today", async () => {
    const doc = await call<object>('GET', `${server.url}/openapi.json`);
    expect(doc.status).toBe(200);
    const made = await run(PYTHON, [GENERATOR, '-', '--stdout'], { input: JSON.stringify(doc.body) });
    expect(made.code, made.stderr).toBe(0);
    expect(readFileSync(TYPES_PY, 'utf8')).toBe(made.stdout);
    await unittest('tests.test_generate_types'); // the generator on other shapes; types.py read by Python
  });

  it('packs as a source distribution that works from a plain sys.path (no dependencies)', async () => {
    const work = path.join(dir, 'pack');
    cpSync(SDK, path.join(work, 'src'), { recursive: true });
    mkdirSync(path.join(work, 'dist'));
    const build = await run(
      PYTHON,
      [
        '-c',
        'import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))',
        '../dist',
      ],
      { cwd: path.join(work, 'src') },
    );
    expect(build.code, build.stderr).toBe(0);
    const [tarball] = readdirSync(path.join(work, 'dist'));
    expect(tarball).toBe('payment-gateway-sdk-0.1.0.tar.gz');
    const unpacked = path.join(work, 'unpacked');
    mkdirSync(unpacked);
    const untar = await run('tar', ['-xzf', path.join(work, 'dist', tarball!), '-C', unpacked], {});
    expect(untar.code, untar.stderr).toBe(0);
    const tree = path.join(unpacked, 'payment-gateway-sdk-0.1.0');
    for (const file of ['__init__.py', 'client.py', 'errors.py', 'types.py', 'webhooks.py', 'py.typed']) {
      expect(readdirSync(path.join(tree, 'gateway_sdk'))).toContain(file);
    }
    const info = readFileSync(path.join(tree, 'PKG-INFO'), 'utf8');
    expect(info).toMatch(/^Requires-Python: >=3\.10$/m);
    expect(info).not.toMatch(/^Requires-Dist:/m);
    const m = merchants.empty!;
    const script = `import json, os, gateway_sdk
gw = gateway_sdk.Gateway(base_url=os.environ["GATEWAY_URL"], public_key=os.environ["PK"], private_key=os.environ["SK"])
print(json.dumps({"from": gateway_sdk.__file__, "balance": gw.balance.retrieve()}))`;
    const used = await run(
      PYTHON,
      ['-I', '-c', `import sys; sys.path.insert(0, ${JSON.stringify(tree)})\n${script}`],
      {
        cwd: dir,
        env: { ...process.env, GATEWAY_URL: server.url, PK: m.publicKey, SK: m.privateKey },
      },
    );
    expect(used.code, used.stderr).toBe(0);
    const out = JSON.parse(used.stdout) as { from: string; balance: unknown };
    expect(out.from.startsWith(tree)).toBe(true);
    expect(out.balance).toEqual({ available: 0, blocked: 0, total: 0, receivable: 0 });
  });
});
